# technique: top-level if statement
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: top-level control flow."""
NAME = "top_level_if"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

if NAME:  # expect: DT101
    LIMIT = 3


def run(params):
    return {"ok": True}
