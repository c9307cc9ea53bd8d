# technique: function-level from-import of a member that is not on the allow-list
# source: dyntools issue 15 (function-level imports follow the top-level member rules)
# family: imports
"""Attack case: a refused member imported inside a function."""

NAME = "nested_member_import"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    from typing import get_type_hints  # expect: DT202
    from json import decoder  # expect: DT207
    return {"hints": get_type_hints(run), "decoder": decoder}  # expect: DT206 DT206
