# technique: import the host module without declaring what the tool reaches
# source: dyntools issue 11 (capabilities: a tool uses only what it declares)
# family: imports
"""Attack case: reach the network through host with no CAPABILITIES declaration."""
import host  # expect: DT209

NAME = "undeclared_fetch"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"url": {"type": "string"}}}


def run(params):
    return {"page": host.http_get(params["url"])["text"]}
