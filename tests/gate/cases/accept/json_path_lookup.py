"""Looks up a value in a JSON document with a dotted path."""
import json
import re
from typing import Any

NAME = "json_path_lookup"
DESCRIPTION = "Returns the value at a path like 'items[0].name' inside a JSON document."
PARAMS = {
    "type": "object",
    "properties": {
        "document": {"type": "string", "description": "JSON text"},
        "path": {"type": "string", "description": "dotted keys and [index] steps"},
    },
    "required": ["document", "path"],
}
EXAMPLES = [
    {
        "params": {"document": "{\"items\": [{\"name\": \"pen\"}, {\"name\": \"ink\"}]}", "path": "items[1].name"},
        "result": {"found": True, "value": "ink"},
    },
    {
        "params": {"document": "{\"a\": {\"b\": 2}}", "path": "a.c"},
        "result": {"found": False, "error": "no key 'c' at a"},
    },
    {"params": {"document": "{oops", "path": "a"}, "result": {"found": False, "error": "invalid JSON"}},
]

STEP_PATTERN = r"([^.\[\]]+)|\[(\d+)\]"


def steps(path: str) -> list[str | int]:
    return [int(index) if index else key for key, index in re.findall(STEP_PATTERN, path)]


def run(params):
    try:
        current: Any = json.loads(params["document"])
    except json.JSONDecodeError:
        return {"found": False, "error": "invalid JSON"}
    walked = []
    for step in steps(params["path"]):
        if isinstance(step, int):
            if not isinstance(current, list) or step >= len(current):
                return {"found": False, "error": f"no index {step} at {'.'.join(walked) or 'root'}"}
        elif not isinstance(current, dict) or step not in current:
            return {"found": False, "error": f"no key {step!r} at {'.'.join(walked) or 'root'}"}
        current = current[step]
        walked.append(str(step))
    return {"found": True, "value": current}
