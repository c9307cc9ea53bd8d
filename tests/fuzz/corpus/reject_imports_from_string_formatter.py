# technique: from string import Formatter
# source: RestrictedPython CVE-2024-47532 (information leak via AttributeError.obj and the string module)
# family: imports
"""Attack case: string.Formatter imported as a member."""
from string import Formatter  # expect: DT202

NAME = "from_string_formatter"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"text": Formatter().vformat("{0.__class__}", [params], {})}
