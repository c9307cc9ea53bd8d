# technique: str.format referenced (not called) and called later
# source: RestrictedPython CVE-2023-41039 / GHSA-xjw2-6jm9-rf67 (str.format and string.Formatter)
# family: names
"""Attack case: str.format referenced."""

NAME = "format_reference"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    render = "{0.__class__}".format  # expect: DT304
    return {"text": render(params)}
