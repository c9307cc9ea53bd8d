# technique: reading an underscore name the file never binds
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: an underscore name the tool does not define."""

NAME = "unbound_underscore"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"x": _secret_state}  # expect: DT301
