# technique: top-level walrus expression
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: top-level walrus."""
NAME = "top_level_walrus"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
(LIMIT := len(NAME))  # expect: DT101


def run(params):
    return {"ok": True}
