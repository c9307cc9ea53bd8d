# technique: PARAMS is a string, not a schema
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: PARAMS is a string."""
NAME = "string_params"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = "object"  # expect: DT506



def run(params):
    return {"ok": True}
