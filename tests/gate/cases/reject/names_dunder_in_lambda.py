# technique: dunder read inside a lambda used as a sort key
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: dunder read inside a lambda used as a sort key."""

NAME = "dunder_lambda"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    ordered = sorted(params["items"], key=lambda item: item.__sizeof__())  # expect: DT302
    return {"ordered": ordered}
