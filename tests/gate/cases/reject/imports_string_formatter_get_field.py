# technique: string.Formatter().get_field walks an attribute path
# source: RestrictedPython CVE-2023-41039 / GHSA-xjw2-6jm9-rf67 (str.format and string.Formatter)
# family: imports
"""Attack case: string.Formatter().get_field walks an attribute path."""

import string

NAME = "formatter_get_field"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    field = string.Formatter().get_field("0.__class__", [params], {})  # expect: DT202
    return {"field": repr(field)}
