# technique: import aliasing: import os as text_utils
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: aliased os import."""
import os as text_utils  # expect: DT201

NAME = "alias_os"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"cwd": text_utils.getcwd()}
