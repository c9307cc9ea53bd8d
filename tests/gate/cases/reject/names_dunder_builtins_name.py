# technique: direct use of the __builtins__ name
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: direct use of the __builtins__ name."""

NAME = "builtins_name"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    table = __builtins__  # expect: DT301
    return {"size": len(table)}
