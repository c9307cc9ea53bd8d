# technique: denied builtin: globals() reaches the builtins
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: globals() reaches the builtins."""

NAME = "builtin_globals"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = globals()["__builtins__"]  # expect: DT401
    return {"leak": repr(leak)}
