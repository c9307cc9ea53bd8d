# technique: dunder read hidden in a walrus inside a comprehension
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: dunder read hidden in a walrus inside a comprehension."""

NAME = "walrus_comprehension"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    found = [k for item in params["items"] if (k := item.__class__)]  # expect: DT302
    return {"n": len(found)}
