"""Computes the running median of a stream of numbers with two heaps."""
import heapq

NAME = "median_stream"
DESCRIPTION = "Returns the running median after each number of a sequence, using a max-heap and a min-heap."
PARAMS = {
    "type": "object",
    "properties": {"numbers": {"type": "array", "items": {"type": "number"}, "maxItems": 100000}},
    "required": ["numbers"],
}
EXAMPLES = [
    {"params": {"numbers": [5, 15, 1, 3, 8]}, "result": {"medians": [5, 10.0, 5, 4.0, 5], "final": 5}},
    {"params": {"numbers": []}, "result": {"medians": [], "final": None}},
]


def run(params):
    lower: list[float] = []  # max-heap of the smaller half, stored negated
    upper: list[float] = []  # min-heap of the larger half
    medians: list[float] = []
    for number in params["numbers"]:
        if not lower or number <= -lower[0]:
            heapq.heappush(lower, -number)
        else:
            heapq.heappush(upper, number)
        if len(lower) > len(upper) + 1:
            heapq.heappush(upper, -heapq.heappop(lower))
        elif len(upper) > len(lower):
            heapq.heappush(lower, -heapq.heappop(upper))
        if len(lower) > len(upper):
            medians.append(-lower[0])
        else:
            medians.append((-lower[0] + upper[0]) / 2)
    return {"medians": medians, "final": medians[-1] if medians else None}
