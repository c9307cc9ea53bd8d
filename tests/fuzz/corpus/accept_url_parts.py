"""Splits a URL into its parts."""
from urllib.parse import urlparse

NAME = "url_parts"
DESCRIPTION = "Splits a URL into scheme, host, port, path, query and fragment."
PARAMS = {
    "type": "object",
    "properties": {"url": {"type": "string"}},
    "required": ["url"],
}
EXAMPLES = [
    {
        "params": {"url": "https://example.com:8443/a/b?x=1&y=2#top"},
        "result": {
            "scheme": "https",
            "host": "example.com",
            "port": 8443,
            "path": "/a/b",
            "query": "x=1&y=2",
            "fragment": "top",
        },
    },
]


def run(params):
    parts = urlparse(params["url"])
    return {
        "scheme": parts.scheme,
        "host": parts.hostname,
        "port": parts.port,
        "path": parts.path,
        "query": parts.query,
        "fragment": parts.fragment,
    }
