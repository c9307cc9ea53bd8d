# technique: denied builtin: class-building helpers
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: class-building helpers."""

NAME = "builtin_classmethod"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = classmethod(print)  # expect: DT401
    return {"leak": repr(leak)}
