# technique: denied builtin: help imports modules
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: help imports modules."""

NAME = "builtin_help"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = help("modules")  # expect: DT401
    return {"leak": repr(leak)}
