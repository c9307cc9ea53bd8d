# technique: recorded exchanges that are not exchanges (a bad method, a non-URL)
# source: dyntools issue 11 (verification replays recorded exchanges)
# family: contract
"""Attack case: EXAMPLES "http" entries verification could not replay faithfully."""
import host

NAME = "bad_recordings"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}}
CAPABILITIES = {"http": ["api.example.com"]}
EXAMPLES = [
    {
        "params": {"q": "a"},
        "result": {"status": 200},
        "http": [{"request": {"method": "DELETE", "url": "https://api.example.com/"},  # expect: DT516
                  "response": {"status": 200}}],
    },
    {
        "params": {"q": "b"},
        "result": {"status": 200},
        "http": {"request": "https://api.example.com/"},  # expect: DT516
    },
]


def run(params):
    return {"status": host.http_get("https://api.example.com/")["status"]}
