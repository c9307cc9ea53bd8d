# technique: class hierarchy via __mro__ on an int
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: class hierarchy via __mro__ on an int."""

NAME = "dunder_mro"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    chain = (1).__class__.__mro__  # expect: DT302 DT302
    return {"depth": len(chain)}
