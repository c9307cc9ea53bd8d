# technique: namespace dict via __dict__ (then look up names built with chr())
# source: crewAIInc/crewAI PR #4643 review (type.__dict__ mappingproxy and chr()-built names)
# family: names
"""Attack case: namespace dict via __dict__."""

NAME = "dunder_dict"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    namespace = params.__class__.__dict__  # expect: DT302 DT302
    key = chr(95) * 2 + "init" + chr(95) * 2
    return {"has": key in namespace}
