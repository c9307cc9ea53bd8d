# technique: constant bound to a lambda
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a lambda as a constant."""
NAME = "constant_lambda"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
SHOUT = lambda text: text.upper()  # expect: DT107


def run(params):
    return {"text": SHOUT(params["text"])}
