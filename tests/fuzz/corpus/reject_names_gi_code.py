# technique: generator code object via gi_code
# source: RestrictedPython CVE-2023-37271 / GHSA-wqc8-x2pr-7jqh (stack frames reached through generators)
# family: names
"""Attack case: generator code object via gi_code."""

NAME = "gi_code"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def numbers():
    yield 1

def run(params):
    code = numbers().gi_code  # expect: DT303
    return {"code": repr(code)}
