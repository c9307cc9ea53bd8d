"""Describes JSON values using collections.abc in isinstance checks and annotations."""
import collections.abc

NAME = "type_describe"
DESCRIPTION = "Describes the shape of a JSON value: its kind, length and the kinds of its items."
PARAMS = {"type": "object", "properties": {"value": {}}, "required": ["value"]}
EXAMPLES = [
    {"params": {"value": {"a": 1, "b": [1, 2]}}, "result": {"kind": "mapping", "length": 2, "items": ["number", "sequence"]}},
    {"params": {"value": "text"}, "result": {"kind": "string", "length": 4, "items": []}},
    {"params": {"value": 3.5}, "result": {"kind": "number", "length": None, "items": []}},
]


def kind(value: object) -> str:
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool) or value is None:
        return "literal"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, collections.abc.Mapping):
        return "mapping"
    if isinstance(value, collections.abc.Sequence):
        return "sequence"
    return "other"


def item_kinds(value: collections.abc.Iterable) -> list[str]:
    if isinstance(value, collections.abc.Mapping):
        return [kind(v) for v in value.values()]
    return [kind(v) for v in value]


def run(params):
    value = params["value"]
    what = kind(value)
    sized = isinstance(value, collections.abc.Sized)
    items = item_kinds(value) if what in ("mapping", "sequence") else []
    return {"kind": what, "length": len(value) if sized else None, "items": items}
