"""Edit distance with functools.lru_cache on a recursive helper."""
from functools import lru_cache

NAME = "edit_distance_memo"
DESCRIPTION = "Computes the Levenshtein edit distance between two short strings by memoised recursion."
PARAMS = {
    "type": "object",
    "properties": {"a": {"type": "string", "maxLength": 200}, "b": {"type": "string", "maxLength": 200}},
    "required": ["a", "b"],
}
EXAMPLES = [
    {"params": {"a": "kitten", "b": "sitting"}, "result": {"distance": 3}},
    {"params": {"a": "", "b": "abc"}, "result": {"distance": 3}},
    {"params": {"a": "flaw", "b": "lawn"}, "result": {"distance": 2}},
]


def distance(a: str, b: str) -> int:
    @lru_cache(maxsize=None)
    def solve(i: int, j: int) -> int:
        if i == len(a):
            return len(b) - j
        if j == len(b):
            return len(a) - i
        if a[i] == b[j]:
            return solve(i + 1, j + 1)
        return 1 + min(solve(i + 1, j), solve(i, j + 1), solve(i + 1, j + 1))

    return solve(0, 0)


def run(params):
    return {"distance": distance(params["a"], params["b"])}
