# technique: module traversal: csv.re
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: module traversal: csv.re."""

import csv

NAME = "csv_re"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    mod = csv.re  # expect: DT207
    return {"mod": repr(mod)}
