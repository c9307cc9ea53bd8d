"""Deep-merges JSON objects."""
import copy

NAME = "merge_dicts"
DESCRIPTION = "Deep-merges a list of objects left to right; nested objects merge, lists either replace or concatenate."
PARAMS = {
    "type": "object",
    "properties": {
        "objects": {"type": "array", "items": {"type": "object"}, "minItems": 1},
        "concat_lists": {"type": "boolean", "default": False},
    },
    "required": ["objects"],
}
EXAMPLES = [
    {
        "params": {"objects": [{"a": 1, "n": {"x": 1, "l": [1]}}, {"n": {"y": 2, "l": [2]}, "b": 2}]},
        "result": {"merged": {"a": 1, "n": {"x": 1, "l": [2], "y": 2}, "b": 2}},
    },
    {
        "params": {"objects": [{"l": [1]}, {"l": [2, 3]}], "concat_lists": True},
        "result": {"merged": {"l": [1, 2, 3]}},
    },
]


def merge(base: dict, update: dict, concat_lists: bool) -> dict:
    for key, value in update.items():
        current = base.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            merge(current, value, concat_lists)
        elif concat_lists and isinstance(current, list) and isinstance(value, list):
            current.extend(copy.deepcopy(value))
        else:
            base[key] = copy.deepcopy(value)
    return base


def run(params):
    merged: dict = {}
    for item in params["objects"]:
        merge(merged, item, params.get("concat_lists", False))
    return {"merged": merged}
