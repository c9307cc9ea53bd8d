"""Exact arithmetic on fractions."""
from fractions import Fraction

NAME = "fraction_calculator"
DESCRIPTION = "Adds, subtracts, multiplies or divides two fractions exactly and returns the reduced result."
PARAMS = {
    "type": "object",
    "properties": {
        "a": {"type": "string", "description": "e.g. '3/4', '-2', '0.125'"},
        "b": {"type": "string"},
        "op": {"enum": ["+", "-", "*", "/"]},
    },
    "required": ["a", "b", "op"],
}
EXAMPLES = [
    {"params": {"a": "1/3", "b": "1/6", "op": "+"}, "result": {"fraction": "1/2", "mixed": "1/2", "decimal": 0.5}},
    {"params": {"a": "7/4", "b": "0.5", "op": "*"}, "result": {"fraction": "7/8", "mixed": "7/8", "decimal": 0.875}},
    {"params": {"a": "-11/4", "b": "1", "op": "-"}, "result": {"fraction": "-15/4", "mixed": "-3 3/4", "decimal": -3.75}},
    {"params": {"a": "1", "b": "0", "op": "/"}, "result": {"error": "division by zero"}},
]

OPERATIONS = ("+", "-", "*", "/")


def mixed(value: Fraction) -> str:
    whole, rest = divmod(abs(value.numerator), value.denominator)
    sign = "-" if value < 0 else ""
    if whole and rest:
        return f"{sign}{whole} {rest}/{value.denominator}"
    return str(value)


def apply(a: Fraction, b: Fraction, op: str) -> Fraction:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a / b


def run(params):
    try:
        a, b = Fraction(params["a"]), Fraction(params["b"])
        result = apply(a, b, params["op"])
    except ZeroDivisionError:
        return {"error": "division by zero"}
    except ValueError as exc:
        return {"error": str(exc)}
    return {"fraction": str(result), "mixed": mixed(result), "decimal": float(result)}
