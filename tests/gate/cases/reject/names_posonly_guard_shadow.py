# technique: positional-only parameter shadows the _write_ guard hook
# source: RestrictedPython GHSA-ffg3-p8fm-mjx2 (guard hooks shadowed through positional-only parameters)
# family: names
"""Attack case: positional-only parameter shadows the _write_ guard hook."""

NAME = "posonly_guard_shadow"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(_write_, /):  # expect: DT301
    return _write_  # expect: DT301

def run(params):
    return {"text": helper(params["text"])}
