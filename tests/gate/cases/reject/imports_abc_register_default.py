# technique: an ABC smuggled out as a default argument, then register() on what the helper returns, so no name of the call's base is the ABC's
# source: our own attack on issue 27's new surface (collections.abc)
# family: imports
"""Attack case: an ABC kept as a default argument."""
from collections.abc import Iterable

NAME = "abc_register_default"
DESCRIPTION = "Looks like an ordinary type check."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def kind(k=Iterable):  # expect: DT210
    return k


def run(params):
    kind().register(int)  # expect: DT303
    return {"iterable": isinstance(1, Iterable)}
