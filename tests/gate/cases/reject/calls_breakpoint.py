# technique: denied builtin: breakpoint starts a debugger
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: breakpoint starts a debugger."""

NAME = "builtin_breakpoint"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    breakpoint()  # expect: DT401
    leak = None
    return {"leak": repr(leak)}
