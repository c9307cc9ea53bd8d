# technique: NAME missing
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
# expect-at: 1 DT501
"""Attack case: no NAME."""
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True}
