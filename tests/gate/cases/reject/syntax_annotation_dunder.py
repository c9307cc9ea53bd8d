# technique: dunder attribute inside an annotation
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: dunder attribute inside an annotation."""

NAME = "annotation_dunder"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(value: str.__class__) -> str:  # expect: DT302
    return value

def run(params):
    return {"value": helper(params["text"])}
