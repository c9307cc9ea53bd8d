# technique: dunder traversal via ().__class__.__bases__[0].__subclasses__()
# source: classic pyjail climb; Ned Batchelder, 'Eval really is dangerous' (2012)
# family: names
"""Attack case: dunder traversal via."""

NAME = "dunder_subclasses"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    classes = ().__class__.__bases__[0].__subclasses__()  # expect: DT302 DT302 DT302
    return {"count": len(classes)}
