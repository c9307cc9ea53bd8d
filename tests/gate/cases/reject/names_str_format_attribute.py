# technique: format-string attribute access: "{0.__class__}".format(x)
# source: RestrictedPython CVE-2023-41039 / GHSA-xjw2-6jm9-rf67 (str.format and string.Formatter)
# family: names
"""Attack case: format-string attribute access: "{0.__class__}".format(x)."""

NAME = "str_format"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"text": "{0.__class__.__base__}".format(params)}  # expect: DT304
