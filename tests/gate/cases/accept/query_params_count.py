"""Reads query parameters through `import urllib` inside the function."""

NAME = "query_params_count"
DESCRIPTION = "Lists the query parameters of a URL with how often each appears."
PARAMS = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
EXAMPLES = [
    {"params": {"url": "https://example.com/p?a=1&b=2&a=3"}, "result": {"counts": {"a": 2, "b": 1}, "host": "example.com"}},
    {"params": {"url": "https://example.com/"}, "result": {"counts": {}, "host": "example.com"}},
]


def run(params):
    import urllib

    parts = urllib.parse.urlsplit(params["url"])
    counts = {}
    for key, _value in urllib.parse.parse_qsl(parts.query):
        counts[key] = counts.get(key, 0) + 1
    return {"counts": counts, "host": parts.hostname}
