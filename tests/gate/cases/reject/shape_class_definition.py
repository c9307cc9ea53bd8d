# technique: class definition
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a class."""
NAME = "class_definition"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


class Helper:  # expect: DT102
    LIMIT = 3


def run(params):
    return {"ok": True}
