# technique: an ABC captured by a walrus inside isinstance's second argument, then register() on the captured name
# source: our own attack on issue 27's new surface (collections.abc)
# family: imports
"""Attack case: an ABC captured by a walrus."""
from collections.abc import Iterable

NAME = "abc_register_walrus"
DESCRIPTION = "Looks like an ordinary type check."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    before = isinstance(params, (captured := Iterable))  # expect: DT210
    captured.register(int)  # expect: DT303
    return {"before": before, "iterable": isinstance(1, Iterable)}
