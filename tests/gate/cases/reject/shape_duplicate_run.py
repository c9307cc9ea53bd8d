# technique: duplicate run (the reviewed one is not the one that runs)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: two run functions."""
NAME = "duplicate_run"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True}


def run(params):  # expect: DT108
    return {"ok": False}
