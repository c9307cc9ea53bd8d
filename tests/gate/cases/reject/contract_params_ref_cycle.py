# technique: PARAMS whose $ref chain never reaches a schema (python-jsonschema, as used by MCP clients, recurses until RecursionError)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: contract
"""Attack case: a $ref cycle in PARAMS."""
NAME = "params_ref_cycle"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x"}}, "properties": {"a": {"$ref": "#/$defs/x"}}}  # expect: DT506



def run(params):
    return {"ok": True}
