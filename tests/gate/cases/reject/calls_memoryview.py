# technique: denied builtin: memoryview exposes raw memory
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: memoryview exposes raw memory."""

NAME = "builtin_memoryview"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = memoryview(b"abc")  # expect: DT401
    return {"leak": repr(leak)}
