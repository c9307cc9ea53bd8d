# technique: allowed module aliased into a variable
# source: simpleeval CVE-2026-32640 (uncontrolled attribute access through exposed objects and modules)
# family: imports
"""Attack case: allowed module aliased into a variable."""

import json

NAME = "module_variable"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    lib = json  # expect: DT206
    return {"text": lib.dumps(params)}
