# technique: attribute write hidden in a for-loop target
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: attribute write hidden in a for-loop target."""

NAME = "attribute_for_target"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper():
    return None

def run(params):
    for helper.last in params["text"]:  # expect: DT305
        pass
    return {"ok": True}
