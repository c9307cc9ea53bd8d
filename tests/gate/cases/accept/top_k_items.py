"""Top or bottom K records by a numeric field."""
import heapq
from operator import itemgetter

NAME = "top_k_items"
DESCRIPTION = "Returns the K records with the largest (or smallest) value of a numeric field, ignoring records without it."
PARAMS = {
    "type": "object",
    "properties": {
        "records": {"type": "array", "items": {"type": "object"}},
        "field": {"type": "string"},
        "k": {"type": "integer", "minimum": 1, "default": 3},
        "smallest": {"type": "boolean", "default": False},
    },
    "required": ["records", "field"],
}
EXAMPLES = [
    {
        "params": {"records": [{"n": "a", "v": 5}, {"n": "b", "v": 9}, {"n": "c"}, {"n": "d", "v": 1}], "field": "v", "k": 2},
        "result": {"items": [{"n": "b", "v": 9}, {"n": "a", "v": 5}], "skipped": 1},
    },
    {
        "params": {"records": [{"v": 3}, {"v": 1}, {"v": 2}], "field": "v", "k": 1, "smallest": True},
        "result": {"items": [{"v": 1}], "skipped": 0},
    },
]


def run(params):
    field = params["field"]
    usable = [r for r in params["records"] if isinstance(r.get(field), int | float) and not isinstance(r.get(field), bool)]
    pick = heapq.nsmallest if params.get("smallest") else heapq.nlargest
    items = pick(params.get("k", 3), usable, key=itemgetter(field))
    return {"items": items, "skipped": len(params["records"]) - len(usable)}
