"""Edit distance between two strings."""

NAME = "levenshtein_distance"
DESCRIPTION = "Levenshtein edit distance and a 0..1 similarity ratio between two strings."
PARAMS = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
    "required": ["a", "b"],
}
EXAMPLES = [
    {"params": {"a": "kitten", "b": "sitting"}, "result": {"distance": 3, "similarity": 0.571}},
    {"params": {"a": "", "b": ""}, "result": {"distance": 0, "similarity": 1.0}},
]


def distance(a: str, b: str) -> int:
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, left in enumerate(a, start=1):
        current = [i]
        for j, right in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (left != right)))
        previous = current
    return previous[-1]


def run(params):
    a, b = params["a"], params["b"]
    steps = distance(a, b)
    longest = max(len(a), len(b))
    similarity = 1.0 if longest == 0 else round(1 - steps / longest, 3)
    return {"distance": steps, "similarity": similarity}
