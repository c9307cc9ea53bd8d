# technique: RestrictedPython's temporary name (_tmp0) bound by the tool
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a name the transform uses for its own values."""

NAME = "rp_temporary"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    _tmp0 = params["text"]  # expect: DT301
    return {"x": _tmp0}  # expect: DT301
