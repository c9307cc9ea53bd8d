"""Compares two JSON documents and lists added, removed and changed paths."""
from typing import Any

NAME = "json_diff"
DESCRIPTION = "Compares two JSON values recursively and lists the paths that were added, removed or changed."
PARAMS = {
    "type": "object",
    "properties": {"old": {}, "new": {}, "max_changes": {"type": "integer", "minimum": 1, "default": 100}},
    "required": ["old", "new"],
}
EXAMPLES = [
    {
        "params": {
            "old": {"name": "svc", "replicas": 2, "ports": [80, 443], "env": {"DEBUG": "1", "TZ": "UTC"}},
            "new": {"name": "svc", "replicas": 3, "ports": [80], "env": {"TZ": "UTC", "LOG": "info"}, "tier": "web"},
        },
        "result": {
            "equal": False,
            "changes": [
                {"op": "removed", "path": "$.env.DEBUG", "old": "1"},
                {"op": "added", "path": "$.env.LOG", "new": "info"},
                {"op": "removed", "path": "$.ports[1]", "old": 443},
                {"op": "changed", "path": "$.replicas", "old": 2, "new": 3},
                {"op": "added", "path": "$.tier", "new": "web"},
            ],
        },
    },
    {"params": {"old": [1, {"a": None}], "new": [1, {"a": None}]}, "result": {"equal": True, "changes": []}},
    {
        "params": {"old": {"a": 1}, "new": {"a": 1.0}},
        "result": {"equal": False, "changes": [{"op": "changed", "path": "$.a", "old": 1, "new": 1.0}]},
    },
]


def same(a: Any, b: Any) -> bool:
    """JSON equality: 1 and 1.0 differ, and True is not 1."""
    kinds_match = all(isinstance(a, kind) == isinstance(b, kind) for kind in (bool, float, str))
    return kinds_match and a == b


def compare(old: Any, new: Any, path: str, changes: list[dict[str, Any]]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            child = f"{path}.{key}"
            if key not in new:
                changes.append({"op": "removed", "path": child, "old": old[key]})
            elif key not in old:
                changes.append({"op": "added", "path": child, "new": new[key]})
            else:
                compare(old[key], new[key], child, changes)
    elif isinstance(old, list) and isinstance(new, list):
        for index in range(max(len(old), len(new))):
            child = f"{path}[{index}]"
            if index >= len(new):
                changes.append({"op": "removed", "path": child, "old": old[index]})
            elif index >= len(old):
                changes.append({"op": "added", "path": child, "new": new[index]})
            else:
                compare(old[index], new[index], child, changes)
    elif not same(old, new):
        changes.append({"op": "changed", "path": path, "old": old, "new": new})


def run(params: dict[str, Any]) -> dict[str, Any]:
    changes: list[dict[str, Any]] = []
    compare(params["old"], params["new"], "$", changes)
    return {"equal": not changes, "changes": changes[: params.get("max_changes", 100)]}
