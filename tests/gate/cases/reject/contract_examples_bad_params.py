# technique: EXAMPLES whose params fail PARAMS
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: examples that do not match the schema."""
NAME = "bad_example_params"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
EXAMPLES = [{"params": {"n": "three"}, "result": {"ok": True}}]  # expect: DT509



def run(params):
    return {"ok": True}
