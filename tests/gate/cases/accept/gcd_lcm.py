"""Computes the greatest common divisor and least common multiple of a list of integers."""
import functools
import math

NAME = "gcd_lcm"
DESCRIPTION = "Returns the GCD and LCM of a list of integers, and each number divided by the GCD."
PARAMS = {
    "type": "object",
    "properties": {"numbers": {"type": "array", "items": {"type": "integer"}, "minItems": 1}},
    "required": ["numbers"],
}
EXAMPLES = [
    {"params": {"numbers": [12, 18, 30]}, "result": {"gcd": 6, "lcm": 180, "reduced": [2, 3, 5], "coprime": False}},
    {"params": {"numbers": [7, 9, -4]}, "result": {"gcd": 1, "lcm": 252, "reduced": [7, 9, -4], "coprime": True}},
    {"params": {"numbers": [0, 0]}, "result": {"gcd": 0, "lcm": 0, "reduced": None, "coprime": False}},
]


def lcm_pair(a: int, b: int) -> int:
    return abs(a * b) // math.gcd(a, b) if a and b else 0


def run(params):
    numbers: list[int] = params["numbers"]
    gcd = functools.reduce(math.gcd, numbers)
    lcm = functools.reduce(lcm_pair, numbers)
    reduced = [n // gcd for n in numbers] if gcd else None
    return {"gcd": gcd, "lcm": abs(lcm), "reduced": reduced, "coprime": gcd == 1}
