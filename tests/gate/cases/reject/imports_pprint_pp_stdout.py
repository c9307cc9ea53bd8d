# technique: pprint.pp writes to the worker's stdout, which carries the sandbox protocol
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: pprint.pp writes to the worker's stdout, which carries the sandbox protocol."""

import pprint

NAME = "pprint_pp"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    pprint.pp(params)  # expect: DT202
    return {"ok": True}
