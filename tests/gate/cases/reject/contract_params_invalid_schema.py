# technique: PARAMS is not a valid JSON Schema
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: invalid schema."""
NAME = "invalid_schema"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "strng"}}}  # expect: DT506



def run(params):
    return {"ok": True}
