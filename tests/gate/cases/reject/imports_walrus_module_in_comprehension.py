# technique: a walrus inside a comprehension captures the module into the function scope
# source: Python execution model: a comprehension's first iterable and default values are evaluated in the enclosing scope
# family: imports
"""Attack case: a walrus inside a comprehension captures the module into the function scope."""

import json

NAME = "walrus_module"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    captured = [(mod := json) for _ in [1]]  # expect: DT206
    return {"mod": repr(mod), "n": len(captured)}
