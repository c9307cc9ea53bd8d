# technique: pickle.loads executes code embedded in data
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: pickle."""
import pickle  # expect: DT201

NAME = "pickle_loads"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"value": repr(pickle.loads(params["text"].encode("latin-1")))}  # expect: DT402
