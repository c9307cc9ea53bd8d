# technique: zoneinfo.available_timezones walks the file system
# source: DESIGN.md section 3: process-wide state and file-system oracles (zoneinfo.reset_tzpath)
# family: imports
"""Attack case: zoneinfo.available_timezones walks the file system."""

import zoneinfo

NAME = "available_timezones"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"zones": sorted(zoneinfo.available_timezones())}  # expect: DT202
