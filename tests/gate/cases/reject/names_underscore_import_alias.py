# technique: import alias with an underscore name
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: private import alias."""
import json as _json  # expect: DT301

NAME = "underscore_alias"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"text": _json.dumps(params)}  # expect: DT301
