# technique: lambda inside a return annotation
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: syntax
"""Attack case: lambda inside a return annotation."""

NAME = "annotation_lambda"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(value: str) -> (lambda: None):  # expect: DT702
    return value

def run(params):
    return {"value": helper(params["text"])}
