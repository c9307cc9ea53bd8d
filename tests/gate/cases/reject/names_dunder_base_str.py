# technique: dunder traversal from a str literal via __class__.__base__
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: dunder traversal from a str literal via __class__.__base__."""

NAME = "dunder_base"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    root = "".__class__.__base__  # expect: DT302 DT302
    return {"root": repr(root)}
