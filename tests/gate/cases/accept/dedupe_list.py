"""Removes duplicates from a list while keeping order."""
import json

NAME = "dedupe_list"
DESCRIPTION = "Removes duplicate items (any JSON values) keeping first occurrences, optionally case-insensitively."
PARAMS = {
    "type": "object",
    "properties": {
        "items": {"type": "array"},
        "ignore_case": {"type": "boolean", "default": False},
    },
    "required": ["items"],
}
EXAMPLES = [
    {
        "params": {"items": ["b", "a", "B", "a", {"k": 1}, {"k": 1}, 3, 3]},
        "result": {"items": ["b", "a", "B", {"k": 1}, 3], "removed": 3},
    },
    {"params": {"items": ["b", "a", "B"], "ignore_case": True}, "result": {"items": ["b", "a"], "removed": 1}},
]


def identity(item: object, ignore_case: bool) -> str:
    if ignore_case and isinstance(item, str):
        item = item.casefold()
    # JSON text is a hashable identity for dicts and lists as well as scalars.
    return json.dumps(item, sort_keys=True)


def run(params):
    seen = set()
    kept = []
    ignore_case = params.get("ignore_case", False)
    for item in params["items"]:
        key = identity(item, ignore_case)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return {"items": kept, "removed": len(params["items"]) - len(kept)}
