# technique: a private local name
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: a private local name."""

NAME = "underscore_local"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    _secret = params["text"]  # expect: DT301
    return {"text": _secret}  # expect: DT301
