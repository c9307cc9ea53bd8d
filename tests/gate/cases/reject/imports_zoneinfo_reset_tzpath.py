# technique: zoneinfo.reset_tzpath changes process state and probes files
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: zoneinfo.reset_tzpath changes process state and probes files."""

import zoneinfo

NAME = "reset_tzpath"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    zoneinfo.reset_tzpath([params["text"]])  # expect: DT202
    return {"ok": True}
