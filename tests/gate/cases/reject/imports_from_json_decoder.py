# technique: from json import decoder (a submodule as a member)
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: a submodule imported as a member."""
from json import decoder  # expect: DT207

NAME = "from_json_decoder"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"inner": repr(decoder.re)}
