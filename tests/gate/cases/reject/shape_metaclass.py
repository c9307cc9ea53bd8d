# technique: class with a metaclass keyword (metaclass runs at definition)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a metaclass."""
NAME = "metaclass_definition"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def meta(name, bases, namespace):
    return name


class Helper(metaclass=meta):  # expect: DT102
    pass


def run(params):
    return {"ok": True}
