# technique: class hierarchy via the public mro() method (no underscore)
# source: asteval CVE-2025-24359 / GHSA-3wwr-3g9f-9gc7 (format spec of an f-string FormattedValue)
# family: names
"""Attack case: class hierarchy via the public mro() method."""

NAME = "mro_method"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    chain = dict.mro()  # expect: DT303
    return {"depth": len(chain)}
