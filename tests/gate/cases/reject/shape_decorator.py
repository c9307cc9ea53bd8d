# technique: decorator runs code at definition time
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: a decorator."""
import functools

NAME = "decorated_run"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


@functools.lru_cache  # expect: DT103
def helper(value):
    return value


def run(params):
    return {"value": helper(params["text"])}
