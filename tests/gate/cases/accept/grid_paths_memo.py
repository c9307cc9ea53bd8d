"""Counts lattice paths around blocked cells with bare @lru_cache and @functools.cache."""
import functools
from functools import lru_cache

NAME = "grid_paths_memo"
DESCRIPTION = "Counts the right/down paths from the top-left to the bottom-right of a grid, avoiding blocked cells."
PARAMS = {
    "type": "object",
    "properties": {
        "rows": {"type": "integer", "minimum": 1, "maximum": 60},
        "cols": {"type": "integer", "minimum": 1, "maximum": 60},
        "blocked": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}, "default": []},
    },
    "required": ["rows", "cols"],
}
EXAMPLES = [
    {"params": {"rows": 3, "cols": 3}, "result": {"paths": 6, "binomial": 6}},
    {"params": {"rows": 3, "cols": 3, "blocked": [[1, 1]]}, "result": {"paths": 2, "binomial": 6}},
]


@functools.cache
def binomial(n: int, k: int) -> int:
    if k in (0, n):
        return 1
    return binomial(n - 1, k - 1) + binomial(n - 1, k)


def count_paths(rows: int, cols: int, blocked: set) -> int:
    @lru_cache
    def paths(r: int, c: int) -> int:
        if (r, c) in blocked or r >= rows or c >= cols:
            return 0
        if (r, c) == (rows - 1, cols - 1):
            return 1
        return paths(r + 1, c) + paths(r, c + 1)

    return paths(0, 0)


def run(params):
    rows, cols = params["rows"], params["cols"]
    blocked = {tuple(cell) for cell in params.get("blocked", [])}
    return {"paths": count_paths(rows, cols, blocked), "binomial": binomial(rows + cols - 2, rows - 1)}
