# technique: zero-width joiner hidden in a comment
# source: Trojan Source, CVE-2021-42574 (Boucher and Anderson, 2021)
# family: hygiene
"""Attack case: zero-width joiner hidden in a comment."""

NAME = "zwj_comment"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    # note‍  # expect: DT005
    return {"ok": True}
