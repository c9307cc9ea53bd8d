# technique: delete a dunder attribute
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: delete a dunder attribute."""

NAME = "del_dunder"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper():
    return None

def run(params):
    del helper.__doc__  # expect: DT302 DT305
    return {"ok": True}
