# technique: denied builtin: hasattr probes private attributes
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: hasattr probes private attributes."""

NAME = "builtin_hasattr"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = hasattr(params, "__globals__")  # expect: DT401
    return {"leak": repr(leak)}
