"""Re-indents a JSON document so a person can read it."""
import json

NAME = "json_pretty"
DESCRIPTION = "Parses a JSON document and returns it indented, optionally with sorted keys."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "the JSON document"},
        "indent": {"type": "integer", "minimum": 0, "maximum": 8, "default": 2},
        "sort_keys": {"type": "boolean", "default": False},
    },
    "required": ["text"],
}
EXAMPLES = [
    {
        "params": {"text": "{\"b\": 1, \"a\": [1, 2]}", "sort_keys": True},
        "result": {"pretty": "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": 1\n}"},
    },
    {
        "params": {"text": "[\"caf\u00e9\"]", "indent": 0},
        "result": {"pretty": "[\n\"caf\u00e9\"\n]"},
    },
]


def run(params):
    try:
        document = json.loads(params["text"])
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}")
    pretty = json.dumps(
        document,
        indent=params.get("indent", 2),
        sort_keys=params.get("sort_keys", False),
        ensure_ascii=False,
    )
    return {"pretty": pretty}
