# technique: chained assignment binds two names at once
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: chained assignment binds two names at once."""
from typing import TYPE_CHECKING

NAME = "shape_chained_assignment"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
LOW = HIGH = 1  # expect: DT106


def run(params):
    return {"ok": True}
