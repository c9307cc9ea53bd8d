# technique: typing.get_origin(typing.Type) hands back the builtin type, a class factory
# source: dyntools allowlist review: typing.get_origin(typing.Type) hands back the builtin type
# family: imports
"""Attack case: typing.get_origin(typing.Type) hands back the builtin type, a class factory."""

import typing

NAME = "get_origin_type"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    factory = typing.get_origin(typing.Type)  # expect: DT202
    return {"klass": repr(factory("Evil", (), {}))}
