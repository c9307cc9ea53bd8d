# technique: import alias shadows a builtin
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: alias shadows len."""
from math import floor as len  # expect: DT208

NAME = "alias_shadow"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"n": len(2.5)}
