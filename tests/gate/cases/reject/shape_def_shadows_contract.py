# technique: a def named like a contract constant
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a def named DESCRIPTION after the constant."""
NAME = "shadow_contract"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def DESCRIPTION():  # expect: DT108
    return "changed"


def run(params):
    return {"ok": True}
