# technique: NAME with path separators
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: NAME with path separators."""
NAME = "../../etc/cron.d/evil"  # expect: DT504
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True}
