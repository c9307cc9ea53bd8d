# technique: format_map with attribute paths: "{p.__class__}".format_map(d)
# source: Jinja2 CVE-2019-10906 (str.format_map)
# family: names
"""Attack case: format_map with attribute paths: "{p.__class__}".format_map(d)."""

NAME = "format_map"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"text": "{p.__class__}".format_map({"p": params})}  # expect: DT304
