"""Nested-dict depth with a nested private helper and keyword-free calls."""

NAME = "tree_depth_private"
DESCRIPTION = "Measures the depth and the number of leaves of a nested JSON object."
PARAMS = {"type": "object", "properties": {"tree": {}}, "required": ["tree"]}
EXAMPLES = [
    {"params": {"tree": {"a": {"b": {"c": 1}}, "d": [1, 2]}}, "result": {"depth": 3, "leaves": 3}},
    {"params": {"tree": 5}, "result": {"depth": 0, "leaves": 1}},
]


def run(params):
    def _walk(node, _level):
        if isinstance(node, dict) and node:
            results = [_walk(child, _level + 1) for child in node.values()]
            return max(r[0] for r in results), sum(r[1] for r in results)
        if isinstance(node, list) and node:
            results = [_walk(child, _level) for child in node]
            return max(r[0] for r in results), sum(r[1] for r in results)
        return _level, 1

    depth, leaves = _walk(params["tree"], 0)
    return {"depth": depth, "leaves": leaves}
