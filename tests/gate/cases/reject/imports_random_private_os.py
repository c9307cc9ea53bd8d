# technique: private re-export random._os
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: names
"""Attack case: private re-export random._os."""

import random

NAME = "random_os"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    loaded = random._os  # expect: DT302
    return {"loaded": repr(loaded)}
