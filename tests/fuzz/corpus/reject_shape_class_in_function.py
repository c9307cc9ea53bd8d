# technique: class defined inside run (dunder methods from a body)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: class defined inside run."""

NAME = "class_in_function"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    class Probe:  # expect: DT102
        pass
    return {"probe": repr(Probe)}
