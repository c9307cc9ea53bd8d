# technique: time.tzset re-reads TZ and changes process-wide state
# source: DESIGN.md section 3: process-wide state and file-system oracles (zoneinfo.reset_tzpath)
# family: imports
"""Attack case: time.tzset re-reads TZ and changes process-wide state."""

import time

NAME = "time_tzset"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    time.tzset()  # expect: DT202
    return {"ok": True}
