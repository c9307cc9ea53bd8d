# technique: denied builtin: getattr with a dunder name
# source: smolagents CVE-2025-5120 / GHSA-6v92-r5mx-h5fx (unwrapped getattr, chaining through allowed modules)
# family: calls
"""Attack case: denied builtin: getattr with a dunder name."""

NAME = "builtin_getattr"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = getattr(params, "__class__")  # expect: DT401
    return {"leak": repr(leak)}
