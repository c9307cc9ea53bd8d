# technique: def-time evaluation in a keyword-only default
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: def-time evaluation in a keyword-only default."""

NAME = "dunder_kwonly_default"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(*, probe=object.__subclasses__):  # expect: DT302 DT401
    return len(probe())

def run(params):
    return {"subs": helper()}
