# technique: function named with two leading underscores (Python's and the sandbox's names)
# source: dyntools issue 27 (underscore names are names; the sandbox's guards stay reserved)
# family: functions
"""Attack case: a double-underscore function."""

NAME = "private_helper"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def __helper(value):  # expect: DT604
    return value


def run(params):
    return {"value": __helper(params["text"])}  # expect: DT301
