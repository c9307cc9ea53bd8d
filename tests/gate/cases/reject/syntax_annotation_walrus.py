# technique: walrus inside an annotation
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: syntax
"""Attack case: walrus inside an annotation."""

NAME = "annotation_walrus"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(value: (hidden := str)) -> str:  # expect: DT702
    return value

def run(params):
    return {"value": helper(params["text"])}
