# technique: duplicate def of the same helper (second silently wins)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: duplicate definition."""
NAME = "duplicate_helper"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def helper(value):
    return value


def helper(value):  # expect: DT108
    return value * 2


def run(params):
    return {"value": helper(params["text"])}
