# technique: functional class builder typing.NamedTuple
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: functional class builder typing.NamedTuple."""

import typing

NAME = "namedtuple_functional"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    point = typing.NamedTuple("Point", [("x", int)])  # expect: DT202
    return {"point": repr(point)}
