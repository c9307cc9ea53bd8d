"""Orders tasks so that every task comes after its dependencies (Kahn's algorithm)."""
from __future__ import annotations

from collections import deque

NAME = "topological_sort"
DESCRIPTION = "Orders tasks so each comes after its dependencies, or reports the tasks caught in a cycle."
PARAMS = {
    "type": "object",
    "properties": {
        "dependencies": {
            "type": "object",
            "description": "task -> list of tasks it depends on",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        }
    },
    "required": ["dependencies"],
}
EXAMPLES = [
    {
        "params": {"dependencies": {"deploy": ["build", "test"], "test": ["build"], "build": ["fetch"]}},
        "result": {"ok": True, "order": ["fetch", "build", "test", "deploy"]},
    },
    {
        "params": {"dependencies": {"a": ["b"], "b": ["c"], "c": ["a"], "d": []}},
        "result": {"ok": False, "order": ["d"], "cycle": ["a", "b", "c"]},
    },
]


def run(params: dict) -> dict:
    deps: dict[str, list[str]] = params["dependencies"]
    nodes = sorted(set(deps) | {d for targets in deps.values() for d in targets})
    indegree = {node: 0 for node in nodes}
    dependents: dict[str, list[str]] = {node: [] for node in nodes}
    for task, needs in deps.items():
        for need in set(needs):
            indegree[task] += 1
            dependents[need].append(task)

    ready = deque(sorted(node for node, count in indegree.items() if count == 0))
    order: list[str] = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for follower in sorted(dependents[node]):
            indegree[follower] -= 1
            if indegree[follower] == 0:
                ready.append(follower)

    if len(order) == len(nodes):
        return {"ok": True, "order": order}
    stuck = sorted(node for node in nodes if indegree[node] > 0)
    return {"ok": False, "order": order, "cycle": stuck}
