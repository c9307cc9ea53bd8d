# technique: not valid Python (tools disagree on how to recover)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: hygiene
"""Attack case: syntax error."""

NAME = "syntax_error"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"ok": True
# expect-at: 12 DT011
