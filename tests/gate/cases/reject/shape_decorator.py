# technique: a decorator other than functools' memoisation ones (functools.wraps copies attributes by name)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a decorator."""
import functools

NAME = "decorated_run"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def inner(value):
    return value


@functools.wraps(inner)  # expect: DT103 DT202
def helper(value):
    return value


def run(params):
    return {"value": helper(params["text"])}
