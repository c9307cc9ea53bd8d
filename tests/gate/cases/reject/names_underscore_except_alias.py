# technique: private name bound by an except clause
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: private name bound by an except clause."""

NAME = "underscore_except_alias"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    try:
        return {"n": int(params["text"])}
    except ValueError as _err:  # expect: DT301
        return {"n": 0}
