# technique: dangerous import hidden inside a function
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: dangerous import hidden inside a function."""

NAME = "nested_os_import"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    import os  # expect: DT201
    return {"cwd": os.getcwd()}
