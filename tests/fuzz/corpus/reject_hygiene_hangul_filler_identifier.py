# technique: Hangul filler U+3164 used as an identifier that renders as nothing
# source: Trojan Source homoglyphs, CVE-2021-42694; PEP 3131 (identifiers are NFKC-normalised)
# family: hygiene
"""Attack case: Hangul filler U+3164 used as an identifier that renders as nothing."""

NAME = "hangul_filler"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    ㅤ = params["text"]  # expect: DT005
    return {"text": ㅤ}  # expect: DT005
