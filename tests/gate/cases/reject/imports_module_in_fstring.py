# technique: module interpolated into an f-string (repr leaks its path)
# source: simpleeval CVE-2026-32640 (uncontrolled attribute access through exposed objects and modules)
# family: imports
"""Attack case: module interpolated into an f-string."""

import json

NAME = "module_fstring"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"where": f"{json!r}"}  # expect: DT206
