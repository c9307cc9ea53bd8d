# technique: a global statement, then a nested def of the same name: the module's constant becomes a closure holding caller 1's params
# source: our own attack on issue 27's new surface (global of a tool-defined name)
# verdict: spent
"""Remembers the last text, in a function."""

NAME = "state_global_rebound_def"
DESCRIPTION = "Remembers the last text, in a function."
PARAMS = {"type": "object", "properties": {"secret": {"type": "string"}}, "required": ["secret"]}

last = ""


def run(params):
    global last
    earlier = [] if last == "" else [last()]
    secret = params["secret"]

    def last():
        return secret

    return {"seen": earlier}
