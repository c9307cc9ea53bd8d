"""Computes the exact determinant and inverse of a square matrix with fractions."""
from fractions import Fraction

NAME = "matrix_determinant"
DESCRIPTION = "Computes the exact determinant, rank and (if it exists) inverse of a square matrix using Gauss-Jordan elimination over fractions."
PARAMS = {
    "type": "object",
    "properties": {
        "matrix": {
            "type": "array",
            "items": {"type": "array", "items": {"type": "number"}},
            "minItems": 1,
            "maxItems": 12,
        }
    },
    "required": ["matrix"],
}
EXAMPLES = [
    {
        "params": {"matrix": [[2, 1], [5, 3]]},
        "result": {"determinant": "1", "rank": 2, "inverse": [["3", "-1"], ["-5", "2"]]},
    },
    {
        "params": {"matrix": [[1, 2, 3], [4, 5, 6], [7, 8, 10]]},
        "result": {
            "determinant": "-3",
            "rank": 3,
            "inverse": [["-2/3", "-4/3", "1"], ["-2/3", "11/3", "-2"], ["1", "-2", "1"]],
        },
    },
    {"params": {"matrix": [[1, 2], [2, 4]]}, "result": {"determinant": "0", "rank": 1, "inverse": None}},
    {"params": {"matrix": [[1, 2, 3], [4, 5]]}, "result": {"error": "the matrix must be square"}},
]


def gauss_jordan(rows: list[list[Fraction]]) -> tuple[Fraction, int, list[list[Fraction]] | None]:
    size = len(rows)
    work = [row[:] + [Fraction(int(i == j)) for j in range(size)] for i, row in enumerate(rows)]
    determinant, rank = Fraction(1), 0
    for column in range(size):
        pivot = next((r for r in range(rank, size) if work[r][column] != 0), None)
        if pivot is None:
            determinant = Fraction(0)
            continue
        if pivot != rank:
            work[rank], work[pivot] = work[pivot], work[rank]
            determinant = -determinant
        lead = work[rank][column]
        determinant *= lead
        work[rank] = [value / lead for value in work[rank]]
        for r in range(size):
            if r != rank and work[r][column] != 0:
                factor = work[r][column]
                work[r] = [a - factor * b for a, b in zip(work[r], work[rank])]
        rank += 1
    inverse = [row[size:] for row in work] if rank == size else None
    return determinant, rank, inverse


def run(params):
    matrix = params["matrix"]
    if any(len(row) != len(matrix) for row in matrix):
        return {"error": "the matrix must be square"}
    rows = [[Fraction(str(value)) for value in row] for row in matrix]
    determinant, rank, inverse = gauss_jordan(rows)
    return {
        "determinant": str(determinant),
        "rank": rank,
        "inverse": [[str(value) for value in row] for row in inverse] if inverse else None,
    }
