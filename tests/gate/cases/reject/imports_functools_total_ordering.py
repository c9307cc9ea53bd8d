# technique: functools.total_ordering writes dunder methods onto a class
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: imports
"""Attack case: functools.total_ordering writes dunder methods onto a class."""

import functools

NAME = "total_ordering"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"klass": repr(functools.total_ordering(params["klass"]))}  # expect: DT202
