# technique: private name as a comprehension target
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: private name as a comprehension target."""

NAME = "underscore_comprehension"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    letters = [__c for __c in params["text"]]  # expect: DT301 DT301
    return {"letters": letters}
