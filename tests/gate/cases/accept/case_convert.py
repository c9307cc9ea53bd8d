"""Converts identifiers between naming conventions."""
import re

NAME = "case_convert"
DESCRIPTION = "Converts an identifier or phrase to snake_case, camelCase, PascalCase, kebab-case or CONSTANT_CASE."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "to": {"enum": ["snake", "camel", "pascal", "kebab", "constant"]},
    },
    "required": ["text", "to"],
}
EXAMPLES = [
    {"params": {"text": "parseHTTPResponse", "to": "snake"}, "result": {"text": "parse_http_response"}},
    {"params": {"text": "user-id field", "to": "camel"}, "result": {"text": "userIdField"}},
    {"params": {"text": "max_retry_count", "to": "constant"}, "result": {"text": "MAX_RETRY_COUNT"}},
    {"params": {"text": "XMLHttpRequest", "to": "kebab"}, "result": {"text": "xml-http-request"}},
]

WORD = r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+"


def words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(WORD, text)]


def run(params):
    parts = words(params["text"])
    target = params["to"]
    if target == "snake":
        text = "_".join(parts)
    elif target == "kebab":
        text = "-".join(parts)
    elif target == "constant":
        text = "_".join(parts).upper()
    else:
        capitalised = "".join(p.capitalize() for p in parts)
        text = capitalised if target == "pascal" else capitalised[:1].lower() + capitalised[1:]
    return {"text": text}
