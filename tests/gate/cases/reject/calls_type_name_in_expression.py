# technique: the annotation-only name type used in an expression
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: the annotation-only name type used in an expression."""

NAME = "type_expression"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    klass = type  # expect: DT401
    return {"klass": repr(klass)}
