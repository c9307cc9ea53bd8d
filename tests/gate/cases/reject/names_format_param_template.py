# technique: format string supplied by the caller (params)
# source: run-llama/llama_index PR #21633 (dunder access via str.format field paths)
# family: names
"""Attack case: format string supplied by the caller."""

NAME = "format_param_template"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    template = params["text"]
    return {"text": template.format(params)}  # expect: DT304
