"""Converts internationalised domain names to and from their ASCII (punycode) form."""
NAME = "idna_domain"
DESCRIPTION = "Converts internationalised domain names to their ASCII xn-- form and back, flagging labels that cannot be converted."
PARAMS = {
    "type": "object",
    "properties": {"domains": {"type": "array", "items": {"type": "string"}, "maxItems": 100}},
    "required": ["domains"],
}
EXAMPLES = [
    {
        "params": {"domains": ["Bücher.example", "xn--mnchen-3ya.de", "example.com", "a..b"]},
        "result": {
            "results": [
                {"input": "Bücher.example", "ascii": "xn--bcher-kva.example", "unicode": "bücher.example"},
                {"input": "xn--mnchen-3ya.de", "ascii": "xn--mnchen-3ya.de", "unicode": "münchen.de"},
                {"input": "example.com", "ascii": "example.com", "unicode": "example.com"},
                {"input": "a..b", "error": "not a valid internationalised domain name"},
            ]
        },
    }
]


def convert(domain: str) -> dict[str, str]:
    text = domain.strip().rstrip(".")
    try:
        ascii_form = text.encode("idna").decode("ascii")
        unicode_form = ascii_form.encode("ascii").decode("idna")
    except UnicodeError:
        return {"input": domain, "error": "not a valid internationalised domain name"}
    return {"input": domain, "ascii": ascii_form.lower(), "unicode": unicode_form.lower()}


def run(params):
    return {"results": [convert(domain) for domain in params["domains"]]}
