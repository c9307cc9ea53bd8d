# technique: attribute write through a with-target (decimal context precision)
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: names
"""Attack case: attribute write through a with-target."""

import decimal

NAME = "with_attribute_write"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def run(params):
    with decimal.localcontext() as context:
        context.prec = 200  # expect: DT305
        return {"value": str(decimal.Decimal(1) / 7)}
