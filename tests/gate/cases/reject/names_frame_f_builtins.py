# technique: frame builtins via f_builtins
# source: RestrictedPython CVE-2023-37271 / GHSA-wqc8-x2pr-7jqh (stack frames reached through generators)
# family: names
"""Attack case: frame builtins via f_builtins."""

NAME = "f_builtins"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}

def numbers():
    yield 1

def run(params):
    table = numbers().gi_frame.f_builtins  # expect: DT303 DT303
    return {"size": len(table)}
