# technique: dunder read bound through a walrus in a condition
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: dunder read bound through a walrus in a condition."""

NAME = "dunder_walrus"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    if (klass := params.__class__) is not None:  # expect: DT302
        return {"klass": repr(klass)}
    return {}
