"""Small matrix arithmetic without numpy."""
import math
from fractions import Fraction

NAME = "matrix_ops"
DESCRIPTION = "Transpose, multiply, determinant and inverse (exact, with fractions) of small matrices."
PARAMS = {
    "type": "object",
    "properties": {
        "a": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}, "minItems": 1},
        "b": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
        "op": {"enum": ["transpose", "multiply", "determinant", "inverse"]},
    },
    "required": ["a", "op"],
}
EXAMPLES = [
    {"params": {"a": [[1, 2, 3], [4, 5, 6]], "op": "transpose"}, "result": {"result": [[1, 4], [2, 5], [3, 6]]}},
    {"params": {"a": [[1, 2], [3, 4]], "b": [[5, 6], [7, 8]], "op": "multiply"}, "result": {"result": [[19, 22], [43, 50]]}},
    {"params": {"a": [[2, 0, 1], [1, 3, 2], [1, 1, 2]], "op": "determinant"}, "result": {"result": 6}},
    {"params": {"a": [[4, 7], [2, 6]], "op": "inverse"}, "result": {"result": [["3/5", "-7/10"], ["-1/5", "2/5"]]}},
    {"params": {"a": [[1, 2], [2, 4]], "op": "inverse"}, "result": {"error": "matrix is singular"}},
]


def transpose(m: list[list]) -> list[list]:
    return [list(column) for column in zip(*m)]


def multiply(a: list[list], b: list[list]) -> list[list]:
    if len(a[0]) != len(b):
        raise ValueError("inner dimensions differ")
    columns = transpose(b)
    return [[sum(x * y for x, y in zip(row, column)) for column in columns] for row in a]


def eliminate(m: list[list]) -> tuple[list[list[Fraction]], Fraction]:
    """Gauss-Jordan on [m | I]; returns the right half and the determinant."""
    n = len(m)
    rows = [[Fraction(x) for x in row] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(m)]
    determinant = Fraction(1)
    for col in range(n):
        pivot = next((r for r in range(col, n) if rows[r][col] != 0), None)
        if pivot is None:
            return [], Fraction(0)
        if pivot != col:
            rows[col], rows[pivot] = rows[pivot], rows[col]
            determinant = -determinant
        determinant *= rows[col][col]
        lead = rows[col][col]
        rows[col] = [x / lead for x in rows[col]]
        for r in range(n):
            if r != col and (factor := rows[r][col]):
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col])]
    return [row[n:] for row in rows], determinant


def plain(value: Fraction) -> int | float:
    return value.numerator if value.denominator == 1 else float(value)


def run(params):
    a, op = params["a"], params["op"]
    if any(len(row) != len(a[0]) for row in a):
        return {"error": "rows have different lengths"}
    if op == "transpose":
        return {"result": transpose(a)}
    if op == "multiply":
        try:
            return {"result": multiply(a, params.get("b", []))}
        except (ValueError, IndexError):
            return {"error": "inner dimensions differ"}
    if len(a) != len(a[0]):
        return {"error": "matrix is not square"}
    inverse, determinant = eliminate(a)
    if op == "determinant":
        return {"result": plain(determinant)}
    if determinant == 0 or not math.isfinite(float(determinant)):
        return {"error": "matrix is singular"}
    return {"result": [[str(x) for x in row] for row in inverse]}
