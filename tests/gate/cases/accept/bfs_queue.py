"""Breadth-first search over a graph with queue.Queue."""
import queue

NAME = "bfs_queue"
DESCRIPTION = "Finds the shortest path (fewest edges) between two nodes of an undirected graph given as an edge list."
PARAMS = {
    "type": "object",
    "properties": {
        "edges": {"type": "array", "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}},
        "start": {"type": "string"},
        "goal": {"type": "string"},
    },
    "required": ["edges", "start", "goal"],
}
EXAMPLES = [
    {"params": {"edges": [["a", "b"], ["b", "c"], ["a", "d"], ["d", "c"], ["c", "e"]], "start": "a", "goal": "e"},
     "result": {"path": ["a", "b", "c", "e"], "length": 3}},
    {"params": {"edges": [["a", "b"]], "start": "a", "goal": "z"}, "result": {"path": None, "length": None}},
]


def run(params):
    graph = {}
    for left, right in params["edges"]:
        graph.setdefault(left, []).append(right)
        graph.setdefault(right, []).append(left)
    start, goal = params["start"], params["goal"]
    parents = {start: None}
    pending = queue.Queue()
    pending.put(start)
    while not pending.empty():
        node = pending.get()
        if node == goal:
            path = []
            while node is not None:
                path.append(node)
                node = parents[node]
            path.reverse()
            return {"path": path, "length": len(path) - 1}
        for neighbour in graph.get(node, []):
            if neighbour not in parents:
                parents[neighbour] = node
                pending.put(neighbour)
    return {"path": None, "length": None}
