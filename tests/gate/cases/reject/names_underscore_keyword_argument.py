# technique: underscore keyword argument name in a call
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: underscore keyword argument name in a call."""

NAME = "underscore_kwarg"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(**options):
    return len(options)

def run(params):
    return {"value": helper(_secret=1)}  # expect: DT301
