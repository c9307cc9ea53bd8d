# technique: RestrictedPython's print collector (_print) bound by a walrus, then read
# source: dyntools issue 27 (_print is reserved although it does not end with an underscore)
# family: names
"""Attack case: RestrictedPython's print name rebound."""

NAME = "guard_walrus_print"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    if (_print := params.get("text")):  # expect: DT301
        return {"n": len(_print)}  # expect: DT301
    return {"n": 0}
