"""Infers a JSON Schema from sample documents."""
from typing import Any

NAME = "schema_infer"
DESCRIPTION = "Infers a JSON Schema from one or more sample JSON values, merging types and marking keys present in every sample as required."
PARAMS = {
    "type": "object",
    "properties": {"samples": {"type": "array", "minItems": 1}},
    "required": ["samples"],
}
EXAMPLES = [
    {
        "params": {"samples": [{"id": 1, "tags": ["a"], "name": "x"}, {"id": 2, "tags": [], "score": 1.5}]},
        "result": {"schema": {
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "name": {"type": "string"},
                "score": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["id", "tags"],
        }},
    },
    {"params": {"samples": [1, "a", None]}, "result": {"schema": {"type": ["integer", "null", "string"]}}},
]


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def infer(values: list) -> dict:
    kinds = {type_name(v) for v in values}
    if {"integer", "number"} <= kinds:
        kinds.discard("integer")
    schema: dict = {"type": kinds.pop() if len(kinds) == 1 else sorted(kinds)}
    objects = [v for v in values if isinstance(v, dict)]
    if objects:
        keys = sorted({key for obj in objects for key in obj})
        schema["properties"] = {key: infer([obj[key] for obj in objects if key in obj]) for key in keys}
        if required := [key for key in keys if all(key in obj for obj in objects)]:
            schema["required"] = required
    items = [item for v in values if isinstance(v, list) for item in v]
    if items:
        schema["items"] = infer(items)
    return schema


def run(params):
    return {"schema": infer(params["samples"])}
