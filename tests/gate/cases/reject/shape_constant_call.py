# technique: non-literal constant calls a function at import
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a constant computed by a call."""
NAME = "constant_call"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
LIMIT = len(DESCRIPTION)  # expect: DT107


def run(params):
    return {"limit": LIMIT}
