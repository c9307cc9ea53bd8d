# technique: annotated assignment whose annotation calls a function
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: syntax
"""Attack case: annotated assignment whose annotation calls a function."""

NAME = "annotation_local_call"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    value: len(params) = 3  # expect: DT702
    return {"value": value}
