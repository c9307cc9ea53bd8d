# technique: a runtime guard (_getattr_) shadowed by an except clause's name
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: names
"""Attack case: a guard rebound by except ... as."""

NAME = "underscore_except_alias"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    try:
        return {"n": int(params["text"])}
    except ValueError as _getattr_:  # expect: DT301
        return {"n": 0}
