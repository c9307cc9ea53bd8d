# technique: RestrictedPython's print collector name (_print) bound as a local
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a reserved local name."""

NAME = "underscore_local"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    _print = params["text"]  # expect: DT301
    return {"text": _print}  # expect: DT301
