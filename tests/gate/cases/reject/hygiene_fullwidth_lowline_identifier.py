# technique: fullwidth low line U+FF3F inside an identifier (a＿b reads as a_b)
# source: Trojan Source homoglyphs, CVE-2021-42694; PEP 3131 (identifiers are NFKC-normalised)
# family: hygiene
"""Attack case: fullwidth low line identifier."""

NAME = "fullwidth_lowline"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    total＿count = len(params["text"])  # expect: DT007
    return {"count": total＿count}  # expect: DT007
