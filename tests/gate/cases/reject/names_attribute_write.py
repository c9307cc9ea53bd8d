# technique: assigning an attribute on a function object
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: assigning an attribute on a function object."""

NAME = "attribute_write"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper():
    return None

def run(params):
    helper.cache = {}  # expect: DT305
    return {"ok": True}
