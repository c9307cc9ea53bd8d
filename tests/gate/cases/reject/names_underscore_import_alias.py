# technique: a runtime guard (_getattr_) shadowed by an import alias
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a guard rebound by an import alias."""
import json as _getattr_  # expect: DT301

NAME = "underscore_alias"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"text": _getattr_.dumps(params)}  # expect: DT301
