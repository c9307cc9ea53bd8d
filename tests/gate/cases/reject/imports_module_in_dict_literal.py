# technique: allowed module stored as a dict value
# source: simpleeval CVE-2026-32640 (uncontrolled attribute access through exposed objects and modules)
# family: imports
"""Attack case: allowed module stored as a dict value."""

import math

NAME = "module_dict"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    registry = {"m": math}  # expect: DT206
    return {"n": len(registry)}
