# technique: soft hyphen U+00AD (format character) in a string
# source: Trojan Source, CVE-2021-42574 (Boucher and Anderson, 2021)
# family: hygiene
"""Attack case: soft hyphen U+00AD (format character) in a string."""

NAME = "soft_hyphen"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    key = "ad­min"  # expect: DT005
    return {"key": key}
