# technique: import os and call os.system
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: shell execution."""
import os  # expect: DT201

NAME = "shell_exec"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"status": os.system(params["text"])}  # expect: DT402
