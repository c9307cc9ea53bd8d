# technique: a runtime guard (_getiter_) shadowed by a comprehension variable
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a guard as a comprehension variable."""

NAME = "guard_comprehension"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"x": [_getiter_ for _getiter_ in params["text"]]}  # expect: DT301 DT301
