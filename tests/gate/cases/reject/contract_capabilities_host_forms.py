# technique: declare hosts with a scheme, a path, a wildcard or userinfo
# source: dyntools issue 11 (capabilities: exact hosts in a tool's own declaration)
# family: contract
"""Attack case: a declaration that names more than exact hosts."""
import host

NAME = "broad_declaration"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}}
CAPABILITIES = {"http": ["api.example.com", "*.example.com"]}  # expect: DT515


def run(params):
    return host.http_get("https://api.example.com/")
