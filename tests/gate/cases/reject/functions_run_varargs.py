# technique: run(*args) takes anything
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: functions
"""Attack case: run with *args."""
NAME = "run_varargs"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(*args):  # expect: DT602
    return {"n": len(args)}
