# technique: tuple unpacking at top level that binds a metadata name in another case
# source: dyntools DESIGN.md section 1/3 (the tool-file contract)
# family: shape
"""Attack case: several names bound at once."""

NAME = "tuple_constant"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


LOW, Params = 1, 9  # expect: DT106


def run(params):
    return {"low": LOW, "high": Params}
