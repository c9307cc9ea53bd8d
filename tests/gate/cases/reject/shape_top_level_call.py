# technique: top-level expression statement runs at import
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: code at import time."""
NAME = "top_level_call"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
print("imported")  # expect: DT101


def run(params):
    return {"ok": True}
