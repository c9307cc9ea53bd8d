# technique: mathematical italic letters normalise to getattr
# source: Trojan Source homoglyphs, CVE-2021-42694; PEP 3131 (identifiers are NFKC-normalised)
# family: hygiene
"""Attack case: mathematical italic letters normalise to getattr."""

NAME = "nfkc_italic"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    leak = 𝑔𝑒𝑡attr(params, "items")  # expect: DT007 DT401
    return {"leak": repr(leak)}
