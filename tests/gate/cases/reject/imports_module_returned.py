# technique: allowed module returned from a helper
# source: simpleeval CVE-2026-32640 (uncontrolled attribute access through exposed objects and modules)
# family: imports
"""Attack case: allowed module returned from a helper."""

import re

NAME = "module_return"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper():
    return re  # expect: DT206

def run(params):
    return {"text": repr(helper())}
