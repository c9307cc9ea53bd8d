# technique: a module re-exported as a member: calendar.datetime
# source: CVE-2026-27952 (Agenta: an allow-listed module re-exports inspect, reaching sys.modules)
# family: imports
"""Attack case: a module re-exported as a member: calendar.datetime."""

import calendar

NAME = "calendar_datetime"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    mod = calendar.datetime  # expect: DT207
    return {"mod": repr(mod)}
