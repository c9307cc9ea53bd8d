"""Flattens nested lists with collections.abc checks."""
from collections.abc import Iterable, Mapping

NAME = "deep_flatten"
DESCRIPTION = "Flattens arbitrarily nested lists into one list; strings and objects stay whole."
PARAMS = {"type": "object", "properties": {"items": {"type": "array"}}, "required": ["items"]}
EXAMPLES = [
    {"params": {"items": [1, [2, [3, [4]], "ab"], {"k": 1}]}, "result": {"flat": [1, 2, 3, 4, "ab", {"k": 1}], "depth": 4}},
    {"params": {"items": []}, "result": {"flat": [], "depth": 1}},
]


def flatten(value: Iterable, out: list, depth: int) -> int:
    deepest = depth
    for item in value:
        if isinstance(item, Iterable) and not isinstance(item, (str, bytes, Mapping)):
            deepest = max(deepest, flatten(item, out, depth + 1))
        else:
            out.append(item)
    return deepest


def run(params):
    out: list = []
    depth = flatten(params["items"], out, 1)
    return {"flat": out, "depth": depth}
