# technique: relative import of a sibling module
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: relative import."""
from . import sibling  # expect: DT204

NAME = "relative_import"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"value": sibling.VALUE}
