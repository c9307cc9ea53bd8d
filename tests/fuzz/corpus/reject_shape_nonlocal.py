# technique: nonlocal statement
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: nonlocal statement."""

NAME = "nonlocal_statement"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    count = 0

    def bump():
        nonlocal count  # expect: DT105
        count += 1

    bump()
    return {"count": count}
