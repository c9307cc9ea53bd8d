# technique: NAME with a dot
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: NAME with a dot."""
NAME = "evil.tool"  # expect: DT504
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True}
