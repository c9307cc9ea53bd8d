# technique: import host inside a function, where a top-level scan would not look
# source: dyntools issue 11 (capabilities: a tool uses only what it declares)
# family: imports
"""Attack case: a function-level `from host import ...` with no CAPABILITIES."""
NAME = "hidden_fetch"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"url": {"type": "string"}}}


def fetch(url):
    from host import http_get  # expect: DT209

    return http_get(url)


def run(params):
    return {"page": fetch(params["url"])["text"]}
