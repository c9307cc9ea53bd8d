# technique: f-string constant evaluates expressions at import
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: f-string constant evaluates expressions at import."""
from typing import TYPE_CHECKING

NAME = "shape_fstring_constant"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
GREETING = f"{NAME!r:>{len(NAME)}}"  # expect: DT107


def run(params):
    return {"ok": True}
