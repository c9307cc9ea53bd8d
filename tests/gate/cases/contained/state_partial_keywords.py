# technique: a functools.partial kept as a default argument holds a list among its keywords; each call appends to it
# source: our own attack on the issue 26 state check (partials' arguments were never compared)
# verdict: spent
"""Remembers the texts it was given."""
import functools

NAME = "state_partial_keywords"
DESCRIPTION = "Remembers the texts it was given."
PARAMS = {"type": "object", "properties": {"secret": {"type": "string"}}, "required": ["secret"]}


def remember(entry, box=functools.partial(dict, seen=[])):
    seen = box.keywords["seen"]
    previous = list(seen)
    seen.append(entry)
    return previous


def run(params):
    return {"seen": remember(params["secret"])}
