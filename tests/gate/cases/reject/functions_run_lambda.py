# technique: run bound to a lambda instead of a def
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: functions
# expect-at: 1 DT601
"""Attack case: run as a lambda."""
NAME = "run_lambda"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
run = lambda params: {"ok": True}  # expect: DT106
