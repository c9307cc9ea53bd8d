"""Finds the shortest path through a grid maze with breadth-first search."""
from collections import deque

NAME = "grid_shortest_path"
DESCRIPTION = "Finds the shortest 4-directional path from S to E in a text maze where '#' is a wall, and draws it with '*'."
PARAMS = {
    "type": "object",
    "properties": {"maze": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
    "required": ["maze"],
}
EXAMPLES = [
    {
        "params": {"maze": ["S.#.....", ".##.###.", "....#..E", "#.#...#."]},
        "result": {
            "length": 11,
            "drawing": ["S.#.....", "*##.###.", "****#**E", "#.#***#."],
            "path_found": True,
        },
    },
    {"params": {"maze": ["S#E"]}, "result": {"length": None, "drawing": ["S#E"], "path_found": False}},
    {"params": {"maze": ["..", ".."]}, "result": {"error": "the maze needs exactly one S and one E"}},
]

MOVES = ((1, 0), (-1, 0), (0, 1), (0, -1))


def find(maze: list[str], char: str) -> list[tuple[int, int]]:
    return [(r, c) for r, row in enumerate(maze) for c, cell in enumerate(row) if cell == char]


def run(params):
    maze: list[str] = params["maze"]
    starts, ends = find(maze, "S"), find(maze, "E")
    if len(starts) != 1 or len(ends) != 1:
        return {"error": "the maze needs exactly one S and one E"}
    start, end = starts[0], ends[0]
    came_from: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
    queue = deque([start])
    while queue:
        row, col = queue.popleft()
        if (row, col) == end:
            break
        for d_row, d_col in MOVES:
            nxt = (row + d_row, col + d_col)
            r, c = nxt
            if 0 <= r < len(maze) and 0 <= c < len(maze[r]) and maze[r][c] != "#" and nxt not in came_from:
                came_from[nxt] = (row, col)
                queue.append(nxt)
    if end not in came_from:
        return {"length": None, "drawing": maze, "path_found": False}
    grid = [list(row) for row in maze]
    step, length = came_from[end], 1
    while step is not None and step != start:
        grid[step[0]][step[1]] = "*"
        step, length = came_from[step], length + 1
    return {"length": length, "drawing": ["".join(row) for row in grid], "path_found": True}
