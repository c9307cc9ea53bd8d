# technique: a runtime guard (_getattr_) shadowed by a parameter
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a guard as a parameter."""

NAME = "guard_parameter"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def lookup(value, _getattr_):  # expect: DT301
    return value.real


def run(params):
    return {"x": lookup(1, lambda obj, name: obj)}
