# technique: module traversal through an allowed module: re.enum
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: module traversal through an allowed module: re.enum."""

import re

NAME = "re_enum"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    flags = re.enum  # expect: DT207
    return {"flags": repr(flags)}
