"""Divides pairs, with underscore names in except clauses and walrus targets."""
import math as _math

NAME = "safe_divide_errors"
DESCRIPTION = "Divides each pair of numbers; division by zero and overflow are reported per pair."
PARAMS = {"type": "object", "properties": {"pairs": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}}, "required": ["pairs"]}
EXAMPLES = [
    {"params": {"pairs": [[1, 2], [1, 0], [9, 3]]}, "result": {"results": [0.5, None, 3.0], "errors": {"1": "division by zero"}, "finite": True}},
]


def run(params):
    results = []
    errors = {}
    for index, (_a, _b) in enumerate(params["pairs"]):
        try:
            results.append(_a / _b)
        except ZeroDivisionError as _err:
            results.append(None)
            errors[str(index)] = str(_err)
    finite = all(_math.isfinite(_r) for _r in results if (_r_ok := _r is not None) and _r_ok)
    return {"results": results, "errors": errors, "finite": finite}
