# technique: top-level try statement
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: top-level try."""
NAME = "top_level_try"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

try:  # expect: DT101
    LIMIT = 1
except ValueError:
    LIMIT = 2


def run(params):
    return {"ok": True}
