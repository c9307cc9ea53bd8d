# technique: allowed module stored in a list
# source: simpleeval CVE-2026-32640 (uncontrolled attribute access through exposed objects and modules)
# family: imports
"""Attack case: allowed module stored in a list."""

import json
import re

NAME = "module_list"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    mods = [json, re]  # expect: DT206 DT206
    return {"n": len(mods)}
