# technique: module traversal: pprint.re
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: module traversal: pprint.re."""

import pprint

NAME = "pprint_re"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    mod = pprint.re  # expect: DT207
    return {"mod": repr(mod)}
