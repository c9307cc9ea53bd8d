"""Counts the ways up a staircase with a module-level memoised helper."""
import functools

NAME = "stair_climb_cache"
DESCRIPTION = "Counts the distinct ways to climb n stairs taking 1, 2 or 3 steps at a time."
PARAMS = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 500}}, "required": ["n"]}
EXAMPLES = [
    {"params": {"n": 4}, "result": {"ways": 7}},
    {"params": {"n": 0}, "result": {"ways": 1}},
    {"params": {"n": 30}, "result": {"ways": 53798080}},
]


@functools.lru_cache(maxsize=1024)
def ways(n: int) -> int:
    if n < 0:
        return 0
    if n == 0:
        return 1
    return ways(n - 1) + ways(n - 2) + ways(n - 3)


def run(params):
    n = params["n"]
    for step in range(0, n, 100):  # fill bottom-up so the recursion stays shallow
        ways(step)
    return {"ways": ways(n)}
