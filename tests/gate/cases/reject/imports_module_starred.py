# technique: module unpacked into a call with *
# source: simpleeval CVE-2026-32640 (uncontrolled attribute access through exposed objects and modules)
# family: imports
"""Attack case: module unpacked into a call with *."""

import json

NAME = "module_starred"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(*parts):
    return parts

def run(params):
    return {"parts": repr(helper(*json))}  # expect: DT206
