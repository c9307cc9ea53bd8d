# technique: EXAMPLES entry without a result
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: example without result."""
NAME = "example_no_result"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
EXAMPLES = [{"params": {"text": "a"}}]  # expect: DT508



def run(params):
    return {"ok": True}
