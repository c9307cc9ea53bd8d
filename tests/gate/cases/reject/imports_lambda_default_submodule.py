# technique: a lambda parameter named json whose default reads the module's submodule
# source: Python execution model: a comprehension's first iterable and default values are evaluated in the enclosing scope
# family: imports
"""Attack case: a lambda parameter named json whose default reads the module's submodule."""

import json

NAME = "lambda_default_submodule"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    pick = lambda json=json.decoder: json  # expect: DT207
    return {"mod": repr(pick())}
