# technique: Trojan Source: RLO override inside a string literal
# source: Trojan Source, CVE-2021-42574 (Boucher and Anderson, 2021)
# family: hygiene
"""Attack case: Trojan Source: RLO override inside a string literal."""

NAME = "bidi_string"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    access = "user‮ ⁦// check if admin⁩ ⁦"  # expect: DT004 DT004 DT004 DT004
    return {"access": access}
