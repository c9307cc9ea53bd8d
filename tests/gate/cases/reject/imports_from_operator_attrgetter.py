# technique: from operator import attrgetter
# source: zopefoundation/RestrictedPython PR #330 (operator.attrgetter/methodcaller re-open the Formatter escape)
# family: imports
"""Attack case: attrgetter imported as a member."""
from operator import attrgetter  # expect: DT402

NAME = "from_attrgetter"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"leak": repr(attrgetter("__class__")(params))}  # expect: DT206
