"""Splits a URL into its parts."""
from urllib.parse import parse_qs, unquote, urlparse

NAME = "url_parse"
DESCRIPTION = "Splits a URL into scheme, host, port, path, query parameters and fragment."
PARAMS = {
    "type": "object",
    "properties": {"url": {"type": "string"}},
    "required": ["url"],
}
EXAMPLES = [
    {
        "params": {"url": "https://user@example.com:8443/a%20b/c?q=1&q=2&x=y#top"},
        "result": {
            "scheme": "https", "host": "example.com", "port": 8443, "username": "user",
            "path": "/a b/c", "query": {"q": ["1", "2"], "x": ["y"]}, "fragment": "top",
        },
    },
    {
        "params": {"url": "example.org/path"},
        "result": {
            "scheme": "", "host": None, "port": None, "username": None,
            "path": "example.org/path", "query": {}, "fragment": "",
        },
    },
]


def run(params):
    parts = urlparse(params["url"])
    try:
        port = parts.port
    except ValueError:
        port = None
    return {
        "scheme": parts.scheme,
        "host": parts.hostname,
        "port": port,
        "username": parts.username,
        "path": unquote(parts.path),
        "query": parse_qs(parts.query),
        "fragment": parts.fragment,
    }
