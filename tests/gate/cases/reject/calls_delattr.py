# technique: denied builtin: delattr on a value
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: delattr on a value."""

NAME = "builtin_delattr"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    delattr(params, "flag")  # expect: DT401
    leak = None
    return {"leak": repr(leak)}
