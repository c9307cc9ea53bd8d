# technique: star import hides what is used
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: star import."""
from math import *  # expect: DT203

NAME = "star_import"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"n": len(params["text"])}
