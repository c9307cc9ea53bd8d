# technique: ANSI escape sequence (ESC) in a comment rewrites the terminal
# source: Trojan Source, CVE-2021-42574 (Boucher and Anderson, 2021)
# family: hygiene
"""Attack case: ANSI escape sequence (ESC) in a comment rewrites the terminal."""

NAME = "escape_control"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    # [2K[1A hidden  # expect: DT006 DT006
    return {"ok": True}
