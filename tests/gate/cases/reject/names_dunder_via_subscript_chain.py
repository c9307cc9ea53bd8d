# technique: dunder read on a subscripted value
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: dunder read on a subscripted value."""

NAME = "subscript_chain"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    base = params["items"][0].__class__.__base__  # expect: DT302 DT302
    return {"base": repr(base)}
