# technique: PARAMS missing
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
# expect-at: 1 DT503
"""Attack case: no PARAMS."""
NAME = "missing_params"
DESCRIPTION = "Looks like an ordinary helper tool."



def run(params):
    return {"ok": True}
