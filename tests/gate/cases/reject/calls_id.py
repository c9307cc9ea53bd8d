# technique: denied builtin: id exposes memory addresses
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: id exposes memory addresses."""

NAME = "builtin_id"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = id(params)  # expect: DT401
    return {"leak": repr(leak)}
