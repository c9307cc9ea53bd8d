# technique: NFKC low-line variants normalise to a __class__ attribute
# source: Trojan Source homoglyphs, CVE-2021-42694; PEP 3131 (identifiers are NFKC-normalised)
# family: hygiene
"""Attack case: NFKC low-line variants normalise to a __class__ attribute."""

NAME = "nfkc_dunder"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    klass = params._＿class＿＿  # expect: DT007 DT302
    return {"klass": repr(klass)}
