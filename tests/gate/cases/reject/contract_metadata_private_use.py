# technique: private-use code points in a PARAMS key, written as escapes: each font shows them differently (or as nothing), so the key a model sends is not the one a reviewer read
# source: dyntools issue 9, finding 5
# family: contract
"""Attack case: private-use characters in the metadata."""
NAME = "metadata_private_use"
DESCRIPTION = "Counts words."
PARAMS = {"type": "object", "properties": {"text\ue000": {"type": "string"}}}  # expect: DT513


def run(params):
    return {"count": len(params.get("text", "").split())}
