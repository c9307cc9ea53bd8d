"""Running totals, differences and streaks of a series."""
from itertools import accumulate, groupby, pairwise

NAME = "running_totals"
DESCRIPTION = "Cumulative sums, step-to-step changes and the longest run of increases in a numeric series."
PARAMS = {
    "type": "object",
    "properties": {"series": {"type": "array", "items": {"type": "number"}}},
    "required": ["series"],
}
EXAMPLES = [
    {
        "params": {"series": [3, 5, 4, 6, 8, 9, 2]},
        "result": {"cumulative": [3, 8, 12, 18, 26, 35, 37], "changes": [2, -1, 2, 2, 1, -7], "longest_rise": 3},
    },
    {"params": {"series": []}, "result": {"cumulative": [], "changes": [], "longest_rise": 0}},
]


def longest_rise(changes: list[float]) -> int:
    runs = (len(list(group)) for rising, group in groupby(changes, key=lambda change: change > 0) if rising)
    return max(runs, default=0)


def run(params):
    series = params["series"]
    changes = [later - earlier for earlier, later in pairwise(series)]
    return {"cumulative": list(accumulate(series)), "changes": changes, "longest_rise": longest_rise(changes)}
