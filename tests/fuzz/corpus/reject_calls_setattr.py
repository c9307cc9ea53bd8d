# technique: denied builtin: setattr on a value
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: setattr on a value."""

NAME = "builtin_setattr"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    setattr(params, "flag", 1)  # expect: DT401
    leak = None
    return {"leak": repr(leak)}
