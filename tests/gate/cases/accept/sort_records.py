"""Sorts records by one or more keys."""
from typing import Any

NAME = "sort_records"
DESCRIPTION = "Sorts a list of records by several keys, each ascending or descending; missing values sort last."
PARAMS = {
    "type": "object",
    "properties": {
        "records": {"type": "array", "items": {"type": "object"}},
        "keys": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "descending": {"type": "boolean"}},
                "required": ["field"],
            },
            "minItems": 1,
        },
    },
    "required": ["records", "keys"],
}
EXAMPLES = [
    {
        "params": {
            "records": [{"n": "b", "age": 30}, {"n": "a", "age": 30}, {"n": "c", "age": 25}, {"n": "d"}],
            "keys": [{"field": "age", "descending": True}, {"field": "n"}],
        },
        "result": {"records": [{"n": "a", "age": 30}, {"n": "b", "age": 30}, {"n": "c", "age": 25}, {"n": "d"}]},
    }
]


def sort_key(record: dict, field: str) -> tuple[bool, Any]:
    value = record.get(field)
    return (value is None, value if value is not None else 0)


def run(params):
    records = list(params["records"])
    # Stable sorts applied from the least to the most significant key.
    for spec in reversed(params["keys"]):
        field = spec["field"]
        present = [r for r in records if r.get(field) is not None]
        missing = [r for r in records if r.get(field) is None]
        present.sort(key=lambda record: sort_key(record, field), reverse=spec.get("descending", False))
        records = present + missing
    return {"records": records}
