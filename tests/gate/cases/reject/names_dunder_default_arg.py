# technique: def-time evaluation of a dunder chain in a default argument
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: def-time evaluation of a dunder chain in a default argument."""

NAME = "dunder_default"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(classes=().__class__.__subclasses__):  # expect: DT302 DT302
    return len(classes())

def run(params):
    return {"size": helper()}
