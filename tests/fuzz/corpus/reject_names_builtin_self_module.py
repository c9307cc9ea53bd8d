# technique: a builtin function's __self__ is the builtins module
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: a builtin function's __self__ is the builtins module."""

NAME = "builtin_self"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    module = len.__self__  # expect: DT302
    return {"module": repr(module)}
