# technique: denied builtin referenced without a call and aliased
# source: smolagents CVE-2025-5120 / GHSA-6v92-r5mx-h5fx (unwrapped getattr, chaining through allowed modules)
# family: calls
"""Attack case: denied builtin referenced without a call and aliased."""

NAME = "getattr_alias"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    fetch = getattr  # expect: DT401
    return {"leak": repr(fetch(params, "items"))}
