# technique: top-level for loop
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: top-level loop."""
NAME = "top_level_for"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

for _ in range(10**9):  # expect: DT101
    pass


def run(params):
    return {"ok": True}
