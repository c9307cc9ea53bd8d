# technique: a slice holds any object: a slice kept as a default argument carries a list in its start field
# source: our own attack on the issue 26 state check (slices were listed as holding no state)
# verdict: spent
"""Remembers the texts it was given."""

NAME = "state_slice_default"
DESCRIPTION = "Remembers the texts it was given."
PARAMS = {"type": "object", "properties": {"secret": {"type": "string"}}, "required": ["secret"]}


def remember(entry, window=slice([], None)):
    seen = window.start
    previous = list(seen)
    seen.append(entry)
    return previous


def run(params):
    return {"seen": remember(params["secret"])}
