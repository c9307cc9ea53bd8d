"""Groups records by a field and aggregates another."""
from collections import defaultdict
from typing import Any, DefaultDict, List

NAME = "group_by_key"
DESCRIPTION = "Groups records by a field and reports count, sum, min, max and average of a numeric field per group."
PARAMS = {
    "type": "object",
    "properties": {
        "records": {"type": "array", "items": {"type": "object"}},
        "by": {"type": "string"},
        "value": {"type": "string"},
    },
    "required": ["records", "by"],
}
EXAMPLES = [
    {
        "params": {
            "records": [
                {"team": "red", "score": 3}, {"team": "blue", "score": 5},
                {"team": "red", "score": 7}, {"score": 1},
            ],
            "by": "team",
            "value": "score",
        },
        "result": {
            "groups": {
                "blue": {"count": 1, "sum": 5, "min": 5, "max": 5, "avg": 5.0},
                "red": {"count": 2, "sum": 10, "min": 3, "max": 7, "avg": 5.0},
                "(missing)": {"count": 1, "sum": 1, "min": 1, "max": 1, "avg": 1.0},
            }
        },
    },
    {"params": {"records": [{"k": "a"}, {"k": "a"}], "by": "k"}, "result": {"groups": {"a": {"count": 2}}}},
]

MISSING = "(missing)"


def summarise(values: List[float]) -> dict:
    return {"sum": sum(values), "min": min(values), "max": max(values), "avg": round(sum(values) / len(values), 3)}


def run(params):
    buckets: DefaultDict[str, List[Any]] = defaultdict(list)
    for record in params["records"]:
        key = record.get(params["by"])
        buckets[MISSING if key is None else str(key)].append(record)
    groups = {}
    for key in sorted(buckets, key=lambda name: (name == MISSING, name)):
        members = buckets[key]
        summary: dict = {"count": len(members)}
        if "value" in params:
            values = [m[params["value"]] for m in members if isinstance(m.get(params["value"]), int | float)]
            if values:
                summary |= summarise(values)
        groups[key] = summary
    return {"groups": groups}
