# technique: denied builtin: type() builds a class from a dict
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: type() builds a class from a dict."""

NAME = "builtin_type"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = type("Evil", (), {"__eq__": print})  # expect: DT401
    return {"leak": repr(leak)}
