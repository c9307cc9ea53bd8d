# technique: typing.get_type_hints evaluates annotation strings
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: typing.get_type_hints evaluates annotation strings."""

import typing

NAME = "get_type_hints"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(value: int) -> int:
    return value

def run(params):
    return {"hints": repr(typing.get_type_hints(helper))}  # expect: DT202
