# technique: deleting an attribute
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: deleting an attribute."""

NAME = "attribute_delete"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper():
    return None

def run(params):
    del helper.cache  # expect: DT305
    return {"ok": True}
