# technique: a metaclass re-exported by typing builds classes
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: a metaclass re-exported by typing builds classes."""

import typing

NAME = "abcmeta"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    klass = typing.ABCMeta("Evil", (), {"__eq__": print})  # expect: DT202
    return {"klass": repr(klass)}
