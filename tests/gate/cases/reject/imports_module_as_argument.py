# technique: allowed module passed as a call argument
# source: simpleeval CVE-2026-32640 (uncontrolled attribute access through exposed objects and modules)
# family: imports
"""Attack case: allowed module passed as a call argument."""

import re

NAME = "module_argument"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(value):
    return value

def run(params):
    return {"text": repr(helper(re))}  # expect: DT206
