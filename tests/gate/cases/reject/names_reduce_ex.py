# technique: pickling protocol __reduce_ex__ hands back callables
# source: lmfit/asteval issue #86 (print.__reduce__() hands back getattr)
# family: names
"""Attack case: pickling protocol __reduce_ex__ hands back callables."""

NAME = "reduce_ex"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    parts = params.__reduce_ex__(2)  # expect: DT302
    return {"parts": repr(parts)}
