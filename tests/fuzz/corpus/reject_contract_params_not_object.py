# technique: PARAMS schema is not of type object
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: array schema."""
NAME = "array_params"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "array", "items": {"type": "string"}}  # expect: DT507



def run(params):
    return {"ok": True}
