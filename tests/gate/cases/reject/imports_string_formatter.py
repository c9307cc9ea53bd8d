# technique: string.Formatter().vformat with attribute paths
# source: RestrictedPython CVE-2023-41039 / GHSA-xjw2-6jm9-rf67 (str.format and string.Formatter)
# family: imports
"""Attack case: string.Formatter."""
import string

NAME = "string_formatter"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    text = string.Formatter().vformat("{0.__class__}", [params], {})  # expect: DT202
    return {"text": text}
