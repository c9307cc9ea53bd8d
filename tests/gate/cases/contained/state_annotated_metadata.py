# technique: a typing.Annotated alias kept as a default argument carries a list in its metadata; typing.get_args hands the list back, and each call appends to it
# source: our own attack on the issue 26 state check (typing aliases were listed as holding no state)
# verdict: spent
"""Remembers the texts it was given."""
import typing

NAME = "state_annotated_metadata"
DESCRIPTION = "Remembers the texts it was given."
PARAMS = {"type": "object", "properties": {"secret": {"type": "string"}}, "required": ["secret"]}


def remember(entry, alias=typing.Annotated[int, []]):
    seen = typing.get_args(alias)[1]
    previous = list(seen)
    seen.append(entry)
    return previous


def run(params):
    return {"seen": remember(params["secret"])}
