# technique: decorator on a nested function
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: decorator on a nested function."""

NAME = "nested_decorator"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    @print  # expect: DT103
    def inner():
        return None
    return {"ok": True}
