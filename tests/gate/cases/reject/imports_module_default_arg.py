# technique: allowed module passed as a default argument
# source: simpleeval CVE-2026-32640 (uncontrolled attribute access through exposed objects and modules)
# family: imports
"""Attack case: allowed module passed as a default argument."""

import json

NAME = "module_default"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(value, lib=json):  # expect: DT206
    return lib.dumps(value)

def run(params):
    return {"text": helper(params)}
