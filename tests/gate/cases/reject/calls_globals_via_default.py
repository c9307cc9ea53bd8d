# technique: globals() evaluated at def time in a default
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: globals() evaluated at def time in a default."""

NAME = "globals_default"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(scope=globals()):  # expect: DT401
    return scope

def run(params):
    return {"n": len(helper())}
