# technique: module traversal: calendar.sys.modules
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: module traversal: calendar.sys.modules."""

import calendar

NAME = "calendar_sys"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    loaded = calendar.sys.modules  # expect: DT207
    return {"n": len(loaded)}
