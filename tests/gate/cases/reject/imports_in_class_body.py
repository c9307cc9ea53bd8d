# technique: import inside a class body (class scope, neither top level nor a function)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: an import in a class body."""

NAME = "class_body_import"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

class Holder:  # expect: DT102
    import math  # expect: DT205

def run(params):
    return {"x": 1}
