"""Edit distance between two strings."""

NAME = "levenshtein_distance"
DESCRIPTION = (
    "Counts the fewest single-character insertions, deletions and substitutions that turn "
    "one string into another (Levenshtein distance)."
)
PARAMS = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
    "required": ["a", "b"],
}
EXAMPLES = [
    {"params": {"a": "kitten", "b": "sitting"}, "result": {"distance": 3}},
    {"params": {"a": "flaw", "b": "lawn"}, "result": {"distance": 2}},
    {"params": {"a": "", "b": "abc"}, "result": {"distance": 3}},
    {"params": {"a": "same", "b": "same"}, "result": {"distance": 0}},
]


def run(params):
    a, b = params["a"], params["b"]
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            cost = 0 if char_a == char_b else 1
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost))
        previous = current
    return {"distance": previous[-1]}
