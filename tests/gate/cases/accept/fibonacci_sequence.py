"""Fibonacci numbers: a sequence, the n-th term, or membership."""
import functools
import math

NAME = "fibonacci_sequence"
DESCRIPTION = "Returns the first N Fibonacci numbers, the N-th one (fast doubling), or whether a number is one."
PARAMS = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 0, "maximum": 1000},
        "nth": {"type": "integer", "minimum": 0, "maximum": 100000},
        "is_fibonacci": {"type": "integer", "minimum": 0},
    },
}
EXAMPLES = [
    {"params": {"count": 10}, "result": {"sequence": [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]}},
    {"params": {"nth": 90}, "result": {"value": "2880067194370816120"}},
    {"params": {"is_fibonacci": 144}, "result": {"is_fibonacci": True}},
    {"params": {"is_fibonacci": 145}, "result": {"is_fibonacci": False}},
    {"params": {}, "result": {"error": "give count, nth or is_fibonacci"}},
]


def sequence(count: int):
    a, b = 0, 1
    for _ in range(count):
        yield a
        a, b = b, a + b


def first(count: int):
    yield from sequence(count)


def doubling(k: int) -> tuple[int, int]:
    """(F(k), F(k+1)) by fast doubling; memoised per call through functools.cache below."""
    if k == 0:
        return (0, 1)
    a, b = cached(k // 2)
    c = a * (2 * b - a)
    d = a * a + b * b
    return (d, c + d) if k % 2 else (c, d)


def cached(k: int) -> tuple[int, int]:
    return doubling(k)


def is_perfect_square(n: int) -> bool:
    return math.isqrt(n) ** 2 == n


def run(params):
    if "count" in params:
        return {"sequence": list(first(params["count"]))}
    if "nth" in params:
        # Large terms go back as text: JSON numbers lose precision past 2**53.
        memo = functools.cache(doubling)
        return {"value": str(memo(params["nth"])[0])}
    if "is_fibonacci" in params:
        n = params["is_fibonacci"]
        return {"is_fibonacci": is_perfect_square(5 * n * n + 4) or is_perfect_square(5 * n * n - 4)}
    return {"error": "give count, nth or is_fibonacci"}
