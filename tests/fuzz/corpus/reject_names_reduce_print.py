# technique: print.__reduce__() hands back the builtin getattr
# source: lmfit/asteval issue #86 (print.__reduce__() hands back getattr)
# family: names
"""Attack case: print.__reduce__() hands back the builtin getattr."""

NAME = "reduce_print"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    reduced = print.__reduce__()  # expect: DT302
    return {"reduced": repr(reduced)}
