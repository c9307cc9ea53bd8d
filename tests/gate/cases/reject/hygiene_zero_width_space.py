# technique: zero-width space inside a string literal
# source: Trojan Source, CVE-2021-42574 (Boucher and Anderson, 2021)
# family: hygiene
"""Attack case: zero-width space inside a string literal."""

NAME = "zero_width"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    key = "ad​min"  # expect: DT005
    return {"key": key}
