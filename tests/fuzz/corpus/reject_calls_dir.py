# technique: denied builtin: dir enumerates private attributes
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: dir enumerates private attributes."""

NAME = "builtin_dir"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = dir(params)  # expect: DT401
    return {"leak": repr(leak)}
