# technique: str.__getattribute__ trampoline with the attribute name as a string
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: str.__getattribute__ trampoline with the attribute name as a string."""

NAME = "getattribute_trampoline"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = str.__getattribute__(params["text"], "__class__")  # expect: DT302
    return {"leak": repr(leak)}
