# technique: a lowercase top-level name that takes a builtin's name
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a module global named like a builtin."""

NAME = "lowercase_constant"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


max = 3  # expect: DT106


def run(params):
    return {"state": max}
