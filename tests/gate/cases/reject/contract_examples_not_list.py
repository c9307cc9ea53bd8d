# technique: EXAMPLES is not a list of fixtures
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: malformed examples."""
NAME = "bad_examples"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
EXAMPLES = {"params": {}, "result": {}}  # expect: DT508



def run(params):
    return {"ok": True}
