# technique: top-level def shadows a denied builtin name
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: a def named getattr."""
NAME = "shadow_getattr"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def getattr(value, name):  # expect: DT307
    return value


def run(params):
    return {"ok": True}
