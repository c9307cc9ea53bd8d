"""Builds a URL from parts and query parameters."""
import urllib.parse

NAME = "url_build"
DESCRIPTION = "Builds a URL from scheme, host, path segments and query parameters, percent-encoding each."
PARAMS = {
    "type": "object",
    "properties": {
        "scheme": {"type": "string", "default": "https"},
        "host": {"type": "string"},
        "segments": {"type": "array", "items": {"type": "string"}, "default": []},
        "query": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
    },
    "required": ["host"],
}
EXAMPLES = [
    {
        "params": {"host": "api.example.com", "segments": ["v1", "search items"], "query": {"q": "café & tea", "page": 2}},
        "result": {"url": "https://api.example.com/v1/search%20items?q=caf%C3%A9+%26+tea&page=2"},
    },
    {"params": {"scheme": "http", "host": "localhost:8080"}, "result": {"url": "http://localhost:8080/"}},
]


def encode_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def run(params):
    path = "/" + "/".join(urllib.parse.quote(segment, safe="") for segment in params.get("segments", []))
    query = urllib.parse.urlencode({key: encode_value(value) for key, value in params.get("query", {}).items()})
    url = urllib.parse.urlunparse((params.get("scheme", "https"), params["host"], path, "", query, ""))
    return {"url": url}
