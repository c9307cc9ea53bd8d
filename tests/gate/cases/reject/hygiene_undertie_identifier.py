# technique: connector punctuation U+203F (undertie) makes is‿admin look like is_admin
# source: Trojan Source homoglyphs, CVE-2021-42694; PEP 3131 (identifiers are NFKC-normalised)
# family: hygiene
"""Attack case: undertie look-alike identifier."""

NAME = "undertie_identifier"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    is_admin = False
    is‿admin = True  # expect: DT007
    return {"admin": is‿admin}  # expect: DT007
