# technique: a comprehension variable named re does not make the outer re a local
# source: Python execution model: a comprehension's first iterable and default values are evaluated in the enclosing scope
# family: imports
"""Attack case: a comprehension variable named re does not make the outer re a local."""

import re

NAME = "comprehension_then_outer"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    squares = [re for re in range(3)]
    flags = re.enum  # expect: DT207
    return {"flags": repr(flags), "n": len(squares)}
