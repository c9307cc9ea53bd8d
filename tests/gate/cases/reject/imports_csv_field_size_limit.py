# technique: csv.field_size_limit changes process-wide parser state
# source: DESIGN.md section 3: process-wide state and file-system oracles (zoneinfo.reset_tzpath)
# family: imports
"""Attack case: csv.field_size_limit changes process-wide parser state."""

import csv

NAME = "csv_field_size_limit"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    csv.field_size_limit(2**31 - 1)  # expect: DT202
    return {"ok": True}
