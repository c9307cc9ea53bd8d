# technique: lambda argument named like a guard hook
# source: RestrictedPython GHSA-ffg3-p8fm-mjx2 (guard hooks shadowed through positional-only parameters)
# family: names
"""Attack case: lambda argument named like a guard hook."""

NAME = "underscore_lambda_arg"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    shadow = lambda _getiter_: _getiter_  # expect: DT301 DT301
    return {"text": shadow(params["text"])}
