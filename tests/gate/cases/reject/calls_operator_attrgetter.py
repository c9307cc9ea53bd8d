# technique: operator.attrgetter reads dotted dunder paths
# source: zopefoundation/RestrictedPython PR #330 (operator.attrgetter/methodcaller re-open the Formatter escape)
# family: calls
"""Attack case: operator.attrgetter reads dotted dunder paths."""

import operator

NAME = "attrgetter"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    leak = operator.attrgetter("__class__.__base__")(params)  # expect: DT402
    return {"leak": repr(leak)}
