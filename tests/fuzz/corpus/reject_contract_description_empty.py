# technique: DESCRIPTION empty
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: empty DESCRIPTION."""
NAME = "empty_description"
DESCRIPTION = ""  # expect: DT505
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True}
