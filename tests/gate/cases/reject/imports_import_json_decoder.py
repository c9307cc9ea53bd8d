# technique: import json.decoder (a non-allowed submodule)
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: a dotted import of a non-allowed submodule."""
import json.decoder  # expect: DT201

NAME = "import_json_decoder"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"value": json.dumps(params)}
