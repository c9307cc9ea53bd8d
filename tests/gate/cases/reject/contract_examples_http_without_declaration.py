# technique: recorded HTTP exchanges in a tool that declares no http
# source: dyntools issue 11 (verification replays recorded exchanges)
# family: contract
"""Attack case: an example pretends the tool talks HTTP while it declares only tools."""
import host

NAME = "pretend_recordings"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}}
CAPABILITIES = {"tools": ["slugify_text"]}
EXAMPLES = [
    {
        "params": {"q": "a"},
        "result": {"slug": "a"},
        "http": [{"request": {"method": "GET", "url": "https://api.example.com/"},  # expect: DT516
                  "response": {"status": 200, "text": "a"}}],
    },
]


def run(params):
    return host.call_tool("slugify_text", {"text": params["q"]})
