# technique: global statement rebinds module state
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: global statement rebinds module state."""

NAME = "global_statement"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    global NAME  # expect: DT105
    return {"name": NAME}
