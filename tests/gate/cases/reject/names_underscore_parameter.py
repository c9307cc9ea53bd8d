# technique: a parameter named like a RestrictedPython guard hook
# source: RestrictedPython GHSA-ffg3-p8fm-mjx2 (guard hooks shadowed through positional-only parameters)
# family: names
"""Attack case: a parameter named like a RestrictedPython guard hook."""

NAME = "underscore_parameter"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper(_getattr_):  # expect: DT301
    return _getattr_  # expect: DT301

def run(params):
    return {"text": helper(params["text"])}
