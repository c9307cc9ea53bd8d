# technique: the comprehension's loop variable shadows json, but its first iterable still sees the module
# source: Python execution model: a comprehension's first iterable and default values are evaluated in the enclosing scope
# family: imports
"""Attack case: the comprehension's loop variable shadows json, but its first iterable still sees the module."""

import json

NAME = "comprehension_first_iterable"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    mods = [json for json in [json.decoder]]  # expect: DT207
    return {"n": len(mods)}
