# technique: denied builtin: locals() exposes the frame
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: locals() exposes the frame."""

NAME = "builtin_locals"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = locals()  # expect: DT401
    return {"leak": repr(leak)}
