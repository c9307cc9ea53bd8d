# technique: ask for a secret without any host it could be sent to
# source: dyntools issue 11 (secrets are added by the host to requests to their own hosts)
# family: contract
"""Attack case: secrets declared beside tools only."""
import host

NAME = "secret_hoarder"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}}
CAPABILITIES = {"secrets": ["DEPLOY_TOKEN"], "tools": ["slugify_text"]}  # expect: DT515


def run(params):
    return host.call_tool("slugify_text", {"text": params["q"]})
