# technique: vars() inside an f-string
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: vars() inside an f-string."""

NAME = "vars_fstring"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"text": f"{vars()}"}  # expect: DT401
