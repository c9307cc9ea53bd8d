# technique: denied builtin: eval of caller-supplied text
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: eval of caller-supplied text."""

NAME = "builtin_eval"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = eval(params["text"])  # expect: DT401
    return {"leak": repr(leak)}
