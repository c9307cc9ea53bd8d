# technique: a runtime guard (_write_) bound by a walrus
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a guard bound by a walrus."""

NAME = "underscore_walrus"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    if (_write_ := len(params["text"])) > 3:  # expect: DT301
        return {"long": True}
    return {"long": False}
