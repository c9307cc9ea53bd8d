"""Adds, replaces or removes query parameters of a URL, keeping the rest intact."""
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

NAME = "query_string_edit"
DESCRIPTION = "Sets or removes query parameters on a URL (for example to strip tracking parameters) and returns the new URL."
PARAMS = {
    "type": "object",
    "properties": {
        "url": {"type": "string"},
        "set": {"type": "object", "additionalProperties": {"type": ["string", "number"]}, "default": {}},
        "remove": {"type": "array", "items": {"type": "string"}, "default": []},
        "remove_prefixes": {"type": "array", "items": {"type": "string"}, "default": []},
        "sort": {"type": "boolean", "default": False},
    },
    "required": ["url"],
}
EXAMPLES = [
    {
        "params": {
            "url": "https://shop.example.com/item?id=42&utm_source=news&utm_medium=mail&ref=abc#reviews",
            "remove": ["ref"],
            "remove_prefixes": ["utm_"],
            "set": {"page": 2},
        },
        "result": {
            "url": "https://shop.example.com/item?id=42&page=2#reviews",
            "removed": ["utm_source", "utm_medium", "ref"],
        },
    },
    {
        "params": {"url": "http://example.org/search?q=caf%C3%A9+au+lait&b=2&a=1", "sort": True, "set": {"q": "tea & cake"}},
        "result": {"url": "http://example.org/search?a=1&b=2&q=tea+%26+cake", "removed": []},
    },
    {"params": {"url": "not a url"}, "result": {"error": "url needs a scheme and a host, e.g. https://example.com/"}},
]


def run(params):
    parts = urlsplit(params["url"])
    if not parts.scheme or not parts.netloc:
        return {"error": "url needs a scheme and a host, e.g. https://example.com/"}
    drop_names = set(params.get("remove", []))
    prefixes = tuple(params.get("remove_prefixes", []))
    kept, removed = [], []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key in drop_names or (prefixes and key.startswith(prefixes)):
            removed.append(key)
        else:
            kept.append((key, value))
    updates = {key: str(value) for key, value in params.get("set", {}).items()}
    kept = [(key, updates.pop(key) if key in updates else value) for key, value in kept]
    kept.extend(updates.items())
    if params.get("sort", False):
        kept.sort()
    url = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept), parts.fragment))
    return {"url": url, "removed": removed}
