# technique: augmented assignment to an attribute
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: augmented assignment to an attribute."""

NAME = "attribute_augassign"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper():
    return None

def run(params):
    helper.calls += 1  # expect: DT305
    return {"ok": True}
