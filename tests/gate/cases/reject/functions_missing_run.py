# technique: no run function
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: functions
# expect-at: 1 DT601
"""Attack case: no run."""
NAME = "missing_run"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def main(params):
    return {"ok": True}
