# technique: PARAMS with a remote $ref (the gate must not fetch it)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: remote $ref."""
NAME = "remote_ref"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"$ref": "https://evil.example/schema.json"}}}  # expect: DT506



def run(params):
    return {"ok": True}
