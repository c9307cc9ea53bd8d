# technique: run with an extra parameter
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: functions
"""Attack case: run with two parameters."""
NAME = "run_two_params"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params, context):  # expect: DT602
    return {"ok": True}
