"""Flattens nested JSON objects into dotted keys, and back."""
from typing import Any

NAME = "flatten_dict"
DESCRIPTION = "Flattens a nested object into {'a.b.c': value} form (lists by index), or unflattens it again."
PARAMS = {
    "type": "object",
    "properties": {
        "data": {"type": "object"},
        "separator": {"type": "string", "minLength": 1, "default": "."},
        "unflatten": {"type": "boolean", "default": False},
    },
    "required": ["data"],
}
EXAMPLES = [
    {
        "params": {"data": {"a": {"b": 1, "c": [10, {"d": 2}]}, "e": None}},
        "result": {"data": {"a.b": 1, "a.c.0": 10, "a.c.1.d": 2, "e": None}},
    },
    {
        "params": {"data": {"a/b": 1, "a/c": 2, "x": 3}, "separator": "/", "unflatten": True},
        "result": {"data": {"a": {"b": 1, "c": 2}, "x": 3}},
    },
]


def flatten(value: Any, prefix: str, separator: str, out: dict) -> dict:
    if isinstance(value, dict) and value:
        items = value.items()
    elif isinstance(value, list) and value:
        items = ((str(index), item) for index, item in enumerate(value))
    else:
        out[prefix] = value
        return out
    for key, item in items:
        flatten(item, f"{prefix}{separator}{key}" if prefix else str(key), separator, out)
    return out


def unflatten(flat: dict, separator: str) -> dict:
    root: dict = {}
    for key, value in flat.items():
        *parents, leaf = key.split(separator)
        node = root
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return root


def run(params):
    separator = params.get("separator", ".")
    if params.get("unflatten"):
        return {"data": unflatten(params["data"], separator)}
    return {"data": flatten(params["data"], "", separator, {})}
