"""Counts the ways to climb a staircase with a given set of step sizes (memoised recursion)."""
import functools
from typing import Callable

NAME = "staircase_ways"
DESCRIPTION = "Counts the distinct ordered ways to climb n stairs when each move may be any of the allowed step sizes."
PARAMS = {
    "type": "object",
    "properties": {
        "n": {"type": "integer", "minimum": 0, "maximum": 500},
        "steps": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1, "default": [1, 2]},
    },
    "required": ["n"],
}
EXAMPLES = [
    {"params": {"n": 10}, "result": {"n": 10, "steps": [1, 2], "ways": 89}},
    {"params": {"n": 4, "steps": [1, 3, 5]}, "result": {"n": 4, "steps": [1, 3, 5], "ways": 3}},
    {"params": {"n": 7, "steps": [2, 4]}, "result": {"n": 7, "steps": [2, 4], "ways": 0}},
    {"params": {"n": 90}, "result": {"n": 90, "steps": [1, 2], "ways": 4660046610375530309}},
]


def make_counter(steps: tuple[int, ...]) -> Callable[[int], int]:
    def ways(remaining: int) -> int:
        if remaining == 0:
            return 1
        return sum(memo(remaining - step) for step in steps if step <= remaining)

    memo = functools.lru_cache(maxsize=None)(ways)
    return memo


def run(params):
    steps = tuple(sorted(set(params.get("steps", [1, 2]))))
    n = params["n"]
    count = make_counter(steps)
    # fill the cache bottom-up so deep staircases never hit the recursion limit
    for height in range(n + 1):
        count(height)
    return {"n": n, "steps": list(steps), "ways": count(n)}
