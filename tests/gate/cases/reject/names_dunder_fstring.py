# technique: dunder inside an f-string replacement field
# source: run-llama/llama_index PR #21633 (dunder access via str.format field paths)
# family: names
"""Attack case: dunder inside an f-string replacement field."""

NAME = "dunder_fstring"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    return {"text": f"{params.__class__}"}  # expect: DT302
