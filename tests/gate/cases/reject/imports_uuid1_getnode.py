# technique: uuid.getnode may start a subprocess
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: uuid.getnode may start a subprocess."""

import uuid

NAME = "uuid_getnode"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"node": uuid.getnode()}  # expect: DT202
