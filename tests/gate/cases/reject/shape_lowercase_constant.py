# technique: lowercase top-level assignment
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a lowercase module global."""
NAME = "lowercase_constant"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
state = 3  # expect: DT106


def run(params):
    return {"state": state}
