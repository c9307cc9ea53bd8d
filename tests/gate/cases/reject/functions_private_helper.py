# technique: private helper function name
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: functions
"""Attack case: private function."""
NAME = "private_helper"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def _helper(value):  # expect: DT604
    return value


def run(params):
    return {"value": _helper(params["text"])}  # expect: DT301
