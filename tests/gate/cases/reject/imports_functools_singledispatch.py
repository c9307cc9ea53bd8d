# technique: functools.singledispatch evaluates annotation strings
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: functools.singledispatch evaluates annotation strings."""

import functools

NAME = "singledispatch"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(value):
    return value

def run(params):
    dispatch = functools.singledispatch(helper)  # expect: DT202
    return {"value": repr(dispatch)}
