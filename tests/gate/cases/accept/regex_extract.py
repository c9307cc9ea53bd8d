"""Extracts regular-expression matches from text."""
import re

NAME = "regex_extract"
DESCRIPTION = "Returns every match of a regular expression in a text, with named groups when present."
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "pattern": {"type": "string"},
        "ignore_case": {"type": "boolean", "default": False},
        "limit": {"type": "integer", "minimum": 1, "default": 100},
    },
    "required": ["text", "pattern"],
}
EXAMPLES = [
    {
        "params": {"text": "Order 12 and 345", "pattern": "\\d+"},
        "result": {"matches": ["12", "345"], "count": 2},
    },
    {
        "params": {"text": "a=1, b=2", "pattern": "(?P<key>\\w)=(?P<value>\\d)"},
        "result": {"matches": [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}], "count": 2},
    },
    {"params": {"text": "x", "pattern": "("}, "result": {"error": "invalid pattern: missing ), unterminated subpattern at position 0"}},
]


def run(params):
    flags = re.IGNORECASE if params.get("ignore_case") else 0
    try:
        pattern = re.compile(params["pattern"], flags)
    except re.error as exc:
        return {"error": f"invalid pattern: {exc}"}
    matches = []
    for found in pattern.finditer(params["text"]):
        matches.append(found.groupdict() if pattern.groupindex else found.group(0))
        if len(matches) >= params.get("limit", 100):
            break
    return {"matches": matches, "count": len(matches)}
