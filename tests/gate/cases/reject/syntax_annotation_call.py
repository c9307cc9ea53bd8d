# technique: call inside a parameter annotation
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: syntax
"""Attack case: call inside a parameter annotation."""

NAME = "annotation_call"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(value: print("annotated")) -> str:  # expect: DT702
    return value

def run(params):
    return {"value": helper(params["text"])}
