# technique: a lone surrogate escape in DESCRIPTION: the file is ASCII and the string is a valid Python str, but no UTF-8 writer accepts it; once approved, the MCP server's tools/list reply failed to serialise and the whole server ended, on every start
# source: dyntools red team R1 (UnicodeEncodeError 'surrogates not allowed' in pydantic's JSON serialiser)
# family: contract
"""Attack case: DESCRIPTION that cannot be written as UTF-8."""
NAME = "description_lone_surrogate"
DESCRIPTION = "Counts the words in a text \ud800."  # expect: DT505
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
EXAMPLES = [{"params": {"text": "a b"}, "result": {"count": 2, "note": "\udfff"}}]  # expect: DT508


def run(params):
    return {"count": len(params["text"].split())}
