# technique: dunder read inside a list comprehension
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: dunder read inside a list comprehension."""

NAME = "dunder_comprehension"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    names = [klass.__name__ for klass in params["items"]]  # expect: DT302
    return {"names": names}
