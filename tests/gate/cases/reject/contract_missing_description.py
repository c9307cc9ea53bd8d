# technique: DESCRIPTION missing
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
# expect-at: 1 DT502
"""Attack case: no DESCRIPTION."""
NAME = "missing_description"
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True}
