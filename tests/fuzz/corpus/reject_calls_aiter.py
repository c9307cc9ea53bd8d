# technique: denied builtin: async iteration
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: calls
"""Attack case: denied builtin: async iteration."""

NAME = "builtin_aiter"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = aiter(params["agen"])  # expect: DT401
    return {"leak": repr(leak)}
