# technique: tuple unpacking at top level that binds a lowercase (mutable-looking) name
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: several names bound at once."""
NAME = "tuple_constant"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
LOW, high = 1, 9  # expect: DT106


def run(params):
    return {"low": LOW, "high": high}
