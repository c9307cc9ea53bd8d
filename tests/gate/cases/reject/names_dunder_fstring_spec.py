# technique: dunder hidden in a nested f-string format spec
# source: asteval CVE-2025-24359 / GHSA-3wwr-3g9f-9gc7 (format spec of an f-string FormattedValue)
# family: names
"""Attack case: dunder hidden in a nested f-string format spec."""

NAME = "dunder_fstring_spec"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    width = 10
    return {"text": f"{width:{params.__len__()}}"}  # expect: DT302
