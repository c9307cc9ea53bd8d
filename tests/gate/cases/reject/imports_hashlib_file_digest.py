# technique: hashlib.file_digest reads from a file object
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: hashlib.file_digest reads from a file object."""

import hashlib

NAME = "file_digest"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"hex": hashlib.file_digest(params["fh"], "sha256").hexdigest()}  # expect: DT202
