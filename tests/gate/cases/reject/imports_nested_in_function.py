# technique: import statement inside a function body
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: import statement inside a function body."""

NAME = "nested_import"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    import math  # expect: DT205
    return {"root": math.sqrt(len(params["text"]))}
