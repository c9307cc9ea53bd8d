"""Finds the cheapest path between two nodes of a weighted graph with Dijkstra's algorithm."""
from __future__ import annotations

import heapq
from typing import Any

NAME = "dijkstra_shortest_path"
DESCRIPTION = "Finds the cheapest path between two nodes of a weighted directed graph given as an adjacency dict."
PARAMS = {
    "type": "object",
    "properties": {
        "graph": {
            "type": "object",
            "description": "node -> {neighbour: non-negative weight}",
            "additionalProperties": {"type": "object", "additionalProperties": {"type": "number", "minimum": 0}},
        },
        "start": {"type": "string"},
        "goal": {"type": "string"},
    },
    "required": ["graph", "start", "goal"],
}
EXAMPLES = [
    {
        "params": {
            "graph": {"A": {"B": 1, "C": 4}, "B": {"C": 2, "D": 5}, "C": {"D": 1}, "D": {}},
            "start": "A",
            "goal": "D",
        },
        "result": {"found": True, "cost": 4, "path": ["A", "B", "C", "D"]},
    },
    {
        "params": {"graph": {"A": {"B": 1}, "B": {}, "C": {"A": 2}}, "start": "A", "goal": "C"},
        "result": {"found": False, "cost": None, "path": []},
    },
    {
        "params": {"graph": {"X": {}}, "start": "X", "goal": "X"},
        "result": {"found": True, "cost": 0, "path": ["X"]},
    },
]


def shortest_path(graph: dict[str, dict[str, float]], start: str, goal: str) -> tuple[float | None, list[str]]:
    """Classic Dijkstra with a binary heap; returns (cost, path) or (None, [])."""
    best: dict[str, float] = {start: 0}
    previous: dict[str, str] = {}
    queue: list[tuple[float, str]] = [(0, start)]
    visited: set[str] = set()
    while queue:
        cost, node = heapq.heappop(queue)
        if node in visited:
            continue
        visited.add(node)
        if node == goal:
            path = [node]
            while path[-1] != start:
                path.append(previous[path[-1]])
            return cost, path[::-1]
        for neighbour, weight in graph.get(node, {}).items():
            candidate = cost + weight
            if candidate < best.get(neighbour, float("inf")):
                best[neighbour] = candidate
                previous[neighbour] = node
                heapq.heappush(queue, (candidate, neighbour))
    return None, []


def run(params: dict[str, Any]) -> dict[str, Any]:
    cost, path = shortest_path(params["graph"], params["start"], params["goal"])
    return {"found": cost is not None, "cost": cost, "path": path}
