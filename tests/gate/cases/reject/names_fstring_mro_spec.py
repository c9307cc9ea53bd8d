# technique: the asteval CVE-2025-24359 shape: f'{dict.mro()[1]:...}'
# source: asteval CVE-2025-24359 / GHSA-3wwr-3g9f-9gc7 (format spec of an f-string FormattedValue)
# family: names
"""Attack case: the asteval CVE-2025-24359 shape: f'{dict.mro()[1]:...}'."""

NAME = "fstring_mro_spec"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"text": f"{dict.mro()[1]:>40}"}  # expect: DT303
