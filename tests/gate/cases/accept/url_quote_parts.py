"""Quotes and unquotes URL parts through `import urllib`."""
import urllib

NAME = "url_quote_parts"
DESCRIPTION = "Percent-encodes or decodes a URL component (path segment or query value)."
PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "decode": {"type": "boolean", "default": False}},
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "a b/c?d=é"}, "result": {"text": "a%20b%2Fc%3Fd%3D%C3%A9"}},
    {"params": {"text": "a%20b%2Fc", "decode": True}, "result": {"text": "a b/c"}},
]


def run(params):
    if params.get("decode", False):
        return {"text": urllib.parse.unquote(params["text"])}
    return {"text": urllib.parse.quote(params["text"], safe="")}
