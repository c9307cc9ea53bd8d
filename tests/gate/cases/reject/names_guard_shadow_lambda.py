# technique: a runtime guard (_write_) shadowed by a lambda argument
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a guard as a lambda argument."""

NAME = "guard_lambda"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    keep = lambda _write_: _write_  # expect: DT301 DT301
    return {"x": keep(1)}
