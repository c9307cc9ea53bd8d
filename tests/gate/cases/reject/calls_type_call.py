# technique: one-argument type() used as a value (a route to every class)
# source: dyntools issue 27 (type(x) only in a comparison with builtin types)
# family: calls
"""Attack case: type() outside its comparison."""

NAME = "type_value"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    kind = type(params)  # expect: DT401
    return {"x": kind == dict}
