# technique: list the tool itself among the tools it may call (a cycle of one)
# source: dyntools issue 11 (capabilities: depth limit, no cycles)
# family: contract
"""Attack case: a declaration the gate must refuse at the offending entry."""
import host

NAME = "self_caller"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}}
CAPABILITIES = {
    "tools": ["slugify_text", "self_caller"],  # expect: DT515
}


def run(params):
    return host.call_tool("slugify_text", {"text": params["q"]})
