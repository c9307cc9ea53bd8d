# technique: typing.types reaches types.FunctionType and CodeType
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: typing.types reaches types.FunctionType and CodeType."""

import typing

NAME = "typing_types"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    builder = typing.types.FunctionType  # expect: DT207
    return {"builder": repr(builder)}
