# technique: function-level import of an allowed module, then the module used as a value
# source: dyntools issue 15 (function-level imports follow the top-level member rules)
# family: imports
"""Attack case: a module imported in a function and handed around as a value."""

NAME = "nested_module_value"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def helper():
    import re
    import json as codec

    def inner():
        return [re]  # expect: DT206
    found = codec.decoder  # expect: DT207
    return inner(), found, re.enum  # expect: DT207

def run(params):
    return {"x": helper()}
