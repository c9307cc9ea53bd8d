# technique: constant built by a comprehension (runs at import)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a constant computed by a comprehension."""
NAME = "constant_comprehension"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
TABLE = [n * n for n in range(10)]  # expect: DT107


def run(params):
    return {"table": TABLE}
