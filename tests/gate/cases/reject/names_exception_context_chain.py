# technique: exception chaining internals via __context__ and __cause__
# source: RestrictedPython CVE-2024-47532 (information leak via AttributeError.obj and the string module)
# family: names
"""Attack case: exception chaining internals via __context__ and __cause__."""

NAME = "exception_context"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    try:
        return {"n": int(params["text"])}
    except ValueError as exc:
        return {"ctx": repr(exc.__context__), "cause": repr(exc.__cause__)}  # expect: DT302 DT302
