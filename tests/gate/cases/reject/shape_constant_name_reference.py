# technique: constant aliasing another name (evaluated at import)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: constant aliasing another name."""
from typing import TYPE_CHECKING

NAME = "shape_constant_name_reference"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
ALIAS = PARAMS  # expect: DT107


def run(params):
    return {"ok": True}
