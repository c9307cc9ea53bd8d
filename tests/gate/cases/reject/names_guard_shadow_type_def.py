# technique: the worker's type-comparison guard (_type_, what type(x) == int compiles to) replaced by a def of the same name
# source: dyntools issue 27 (type(x) == NAME; the guards stay reserved)
# family: names
"""Attack case: the type guard defined by the tool."""

NAME = "guard_type_def"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def _type_(value):  # expect: DT301
    return value


def run(params):
    return {"same": type(params) == dict}
