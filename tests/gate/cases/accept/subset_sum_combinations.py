"""Finds every combination of numbers that adds up to a target."""
import itertools
from typing import Any

NAME = "subset_sum_combinations"
DESCRIPTION = "Lists every combination of the given numbers (each used at most once) whose sum equals the target."
PARAMS = {
    "type": "object",
    "properties": {
        "numbers": {"type": "array", "items": {"type": "integer"}, "maxItems": 20},
        "target": {"type": "integer"},
        "max_results": {"type": "integer", "minimum": 1, "default": 50},
    },
    "required": ["numbers", "target"],
}
EXAMPLES = [
    {
        "params": {"numbers": [8, 2, 3, 5, 7, 10], "target": 10},
        "result": {"combinations": [[10], [2, 8], [3, 7], [2, 3, 5]], "count": 4, "truncated": False},
    },
    {
        "params": {"numbers": [1, 1, 2], "target": 2, "max_results": 1},
        "result": {"combinations": [[2]], "count": 1, "truncated": True},
    },
    {"params": {"numbers": [4, 6], "target": 3}, "result": {"combinations": [], "count": 0, "truncated": False}},
]


def run(params: dict[str, Any]) -> dict[str, Any]:
    numbers = sorted(params["numbers"])
    target, limit = params["target"], params.get("max_results", 50)
    found: list[list[int]] = []
    seen: set[tuple[int, ...]] = set()
    for size in range(1, len(numbers) + 1):
        for combo in itertools.combinations(numbers, size):
            if sum(combo) == target and combo not in seen:
                seen.add(combo)
                found.append(list(combo))
    return {"combinations": found[:limit], "count": min(len(found), limit), "truncated": len(found) > limit}
