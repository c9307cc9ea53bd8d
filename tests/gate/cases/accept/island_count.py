"""Counts islands in a grid with a depth-first search helper."""

NAME = "island_count"
DESCRIPTION = "Counts the islands (4-connected groups of 1s) in a grid of 0s and 1s, and the largest one's size."
PARAMS = {
    "type": "object",
    "properties": {
        "grid": {"type": "array", "items": {"type": "array", "items": {"enum": [0, 1]}}, "maxItems": 200},
    },
    "required": ["grid"],
}
EXAMPLES = [
    {"params": {"grid": [[1, 1, 0, 0], [1, 0, 0, 1], [0, 0, 1, 1], [0, 0, 0, 0]]}, "result": {"islands": 2, "largest": 3}},
    {"params": {"grid": []}, "result": {"islands": 0, "largest": 0}},
]


def _dfs(grid, seen, row, col):
    stack = [(row, col)]
    size = 0
    while stack:
        r, c = stack.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        size += 1
        for _dr, _dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nr, nc = r + _dr, c + _dc
            if 0 <= nr < len(grid) and 0 <= nc < len(grid[nr]) and grid[nr][nc] == 1:
                stack.append((nr, nc))
    return size


def run(params):
    grid = params["grid"]
    seen = set()
    sizes = []
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell == 1 and (r, c) not in seen:
                sizes.append(_dfs(grid, seen, r, c))
    return {"islands": len(sizes), "largest": max(sizes, default=0)}
