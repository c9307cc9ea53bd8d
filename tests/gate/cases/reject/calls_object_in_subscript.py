# technique: the annotation-only name object used in a typing subscript outside an annotation
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: the annotation-only name object used in a typing subscript outside an annotation."""

import typing

NAME = "object_expression"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    alias = typing.List[object]  # expect: DT401
    return {"alias": repr(alias)}
