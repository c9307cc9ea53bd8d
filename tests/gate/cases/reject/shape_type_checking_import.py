# technique: import hidden under `if TYPE_CHECKING:` (looks inert, but is top-level control flow around a denied import)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: import hidden under if TYPE_CHECKING."""
from typing import TYPE_CHECKING

NAME = "shape_type_checking_import"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
if TYPE_CHECKING:  # expect: DT101
    import os  # expect: DT201


def run(params):
    return {"ok": True}
