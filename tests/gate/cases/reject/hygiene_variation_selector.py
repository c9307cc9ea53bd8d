# technique: variation selector appended to a character
# source: Trojan Source, CVE-2021-42574 (Boucher and Anderson, 2021)
# family: hygiene
"""Attack case: variation selector appended to a character."""

NAME = "variation_selector"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    key = "a️dmin"  # expect: DT005
    return {"key": key}
