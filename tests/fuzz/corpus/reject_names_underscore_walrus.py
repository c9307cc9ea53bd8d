# technique: private name bound by a walrus
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: private name bound by a walrus."""

NAME = "underscore_walrus"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    if (_n := len(params["text"])) > 3:  # expect: DT301
        return {"long": True}
    return {"long": False}
