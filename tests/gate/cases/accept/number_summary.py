"""Summarises a list of numbers; imports live in the functions that use them."""

NAME = "number_summary"
DESCRIPTION = "Summarises a list of numbers: mean, median, geometric mean and the rounded square root of their sum."
PARAMS = {
    "type": "object",
    "properties": {
        "numbers": {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 1000},
    },
    "required": ["numbers"],
}
EXAMPLES = [
    {"params": {"numbers": [1, 2, 4]}, "result": {"mean": 2.333, "median": 2, "geometric_mean": 2.0, "root_of_sum": 2.646}},
    {"params": {"numbers": [9]}, "result": {"mean": 9, "median": 9, "geometric_mean": 9.0, "root_of_sum": 3.0}},
    {"params": {"numbers": [-1, 3]}, "result": {"mean": 1, "median": 1.0, "geometric_mean": None, "root_of_sum": 1.414}},
]


def geometric(numbers: list[float]) -> float | None:
    import math
    from statistics import geometric_mean

    if any(value <= 0 for value in numbers):
        return None
    return round(geometric_mean(numbers), 3) if len(numbers) > 1 else float(math.fsum(numbers))


def run(params: dict) -> dict:
    import math
    import statistics as stats

    numbers = params["numbers"]

    def rounded(value: float) -> float:
        return round(value, 3)

    return {
        "mean": rounded(stats.mean(numbers)),
        "median": stats.median(numbers),
        "geometric_mean": geometric(numbers),
        "root_of_sum": rounded(math.sqrt(max(math.fsum(numbers), 0.0))),
    }
