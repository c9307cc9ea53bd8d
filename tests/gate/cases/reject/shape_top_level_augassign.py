# technique: augmented assignment rebinds a constant after review
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: augmented assignment rebinds a constant after review."""
from typing import TYPE_CHECKING

NAME = "shape_top_level_augassign"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
LIMIT = 1
LIMIT += 10**9  # expect: DT101


def run(params):
    return {"ok": True}
