"""Catalan numbers with functools.cache."""
from functools import cache

NAME = "catalan_numbers"
DESCRIPTION = "Returns the n-th Catalan number (the number of balanced bracket strings with n pairs)."
PARAMS = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 300}}, "required": ["n"]}
EXAMPLES = [
    {"params": {"n": 3}, "result": {"catalan": 5}},
    {"params": {"n": 10}, "result": {"catalan": 16796}},
]


@cache
def catalan(n: int) -> int:
    if n <= 1:
        return 1
    return sum(catalan(i) * catalan(n - 1 - i) for i in range(n))


def run(params):
    n = params["n"]
    for k in range(0, n, 50):
        catalan(k)
    return {"catalan": catalan(n)}
