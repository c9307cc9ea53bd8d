"""Validates and normalises e-mail addresses."""
import re

NAME = "email_validate"
DESCRIPTION = "Checks e-mail address syntax (a practical subset of RFC 5322) and normalises the domain."
PARAMS = {
    "type": "object",
    "properties": {"emails": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
    "required": ["emails"],
}
EXAMPLES = [
    {
        "params": {"emails": ["Ada.Lovelace@Example.COM", "bad@", "a..b@example.com", "x@localhost", "tag+news@mail.co.uk"]},
        "result": {
            "results": [
                {"email": "Ada.Lovelace@Example.COM", "valid": True, "normalized": "Ada.Lovelace@example.com"},
                {"email": "bad@", "valid": False, "reason": "missing domain"},
                {"email": "a..b@example.com", "valid": False, "reason": "invalid local part"},
                {"email": "x@localhost", "valid": False, "reason": "domain needs a dot"},
                {"email": "tag+news@mail.co.uk", "valid": True, "normalized": "tag+news@mail.co.uk"},
            ],
            "valid_count": 2,
        },
    }
]

LOCAL = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"


def check(email: str) -> dict:
    local, at, domain = email.rpartition("@")
    if not at or not local:
        return {"email": email, "valid": False, "reason": "missing @ or local part"}
    if not domain:
        return {"email": email, "valid": False, "reason": "missing domain"}
    if len(local) > 64 or not re.fullmatch(LOCAL, local):
        return {"email": email, "valid": False, "reason": "invalid local part"}
    labels = domain.split(".")
    if len(labels) < 2:
        return {"email": email, "valid": False, "reason": "domain needs a dot"}
    if not all(re.fullmatch(LABEL, label) for label in labels):
        return {"email": email, "valid": False, "reason": "invalid domain"}
    return {"email": email, "valid": True, "normalized": f"{local}@{domain.lower()}"}


def run(params):
    results = [check(email.strip()) for email in params["emails"]]
    return {"results": results, "valid_count": sum(r["valid"] for r in results)}
