# technique: overwrite a function's __defaults__ to smuggle objects
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: overwrite a function's __defaults__ to smuggle objects."""

NAME = "defaults_write"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(value=None):
    return value

def run(params):
    helper.__defaults__ = (params,)  # expect: DT302 DT305
    return {"value": helper()}
