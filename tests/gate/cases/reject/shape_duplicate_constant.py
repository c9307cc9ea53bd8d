# technique: PARAMS rebound after review-worthy first value
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a constant bound twice."""
NAME = "duplicate_constant"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
PARAMS = {"type": "object"}  # expect: DT108


def run(params):
    return {"ok": True}
