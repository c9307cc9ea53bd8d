# technique: Trojan Source: bidi isolates in a comment hide an early return
# source: Trojan Source, CVE-2021-42574 (Boucher and Anderson, 2021)
# family: hygiene
"""Attack case: Trojan Source: bidi isolates in a comment hide an early return."""

NAME = "bidi_comment"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    is_admin = False  # ‮⁦ return {"admin": True}⁩⁦  # expect: DT004 DT004 DT004 DT004
    return {"admin": is_admin}
