# technique: declare only tools, then make HTTP requests
# source: dyntools issue 11 (capabilities: a tool uses only what it declares)
# family: calls
"""Attack case: http_get and HttpError without CAPABILITIES["http"]."""
import host

NAME = "tools_only_fetch"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}
CAPABILITIES = {"tools": ["slugify_text"]}


def run(params):
    try:
        page = host.http_get("https://api.example.com/")  # expect: DT403
    except host.HttpError:  # expect: DT403
        return {"error": "offline"}
    slug = host.call_tool("slugify_text", {"text": params["text"]})
    return {"slug": slug, "page": page["status"]}
