"""Roots of a quadratic equation, real or complex."""
import cmath
import math

NAME = "quadratic_solver"
DESCRIPTION = "Solves a*x^2 + b*x + c = 0 and returns real or complex roots with the discriminant."
PARAMS = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "c": {"type": "number"}},
    "required": ["a", "b", "c"],
}
EXAMPLES = [
    {"params": {"a": 1, "b": -3, "c": 2}, "result": {"discriminant": 1.0, "roots": [2.0, 1.0], "kind": "real"}},
    {"params": {"a": 1, "b": 2, "c": 5}, "result": {"discriminant": -16.0, "roots": ["-1+2j", "-1-2j"], "kind": "complex"}},
    {"params": {"a": 0, "b": 2, "c": -4}, "result": {"discriminant": None, "roots": [2.0], "kind": "linear"}},
    {"params": {"a": 0, "b": 0, "c": 1}, "result": {"error": "no solution"}},
]


def describe(root: complex) -> str:
    real = f"{root.real:g}"
    imaginary = f"{abs(root.imag):g}j"
    return f"{real}{'+' if root.imag >= 0 else '-'}{imaginary}"


def run(params):
    a, b, c = (float(params[key]) for key in ("a", "b", "c"))
    if a == 0:
        if b == 0:
            return {"error": "no solution"}
        return {"discriminant": None, "roots": [-c / b], "kind": "linear"}
    discriminant = b * b - 4 * a * c
    if discriminant >= 0:
        root = math.sqrt(discriminant)
        roots = sorted({(-b + root) / (2 * a), (-b - root) / (2 * a)}, reverse=True)
        return {"discriminant": discriminant, "roots": roots, "kind": "real"}
    root = cmath.sqrt(discriminant)
    pair = [(-b + root) / (2 * a), (-b - root) / (2 * a)]
    return {"discriminant": discriminant, "roots": [describe(z) for z in pair], "kind": "complex"}
