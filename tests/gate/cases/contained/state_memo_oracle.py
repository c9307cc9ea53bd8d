# technique: a module-level functools.lru_cache on a helper: cache_info() would tell a later caller whether an earlier one asked the same question
# source: our own attack on issue 27's new surface
# verdict: cleared
"""Measures texts, with a cache."""
import functools

NAME = "state_memo_oracle"
DESCRIPTION = "Measures texts, with a cache."
PARAMS = {"type": "object", "properties": {"secret": {"type": "string"}}, "required": ["secret"]}


@functools.lru_cache(maxsize=None)
def measure(text):
    return len(text)


def run(params):
    before = measure.cache_info().hits
    measure("alice-secret")
    measure(params["secret"])
    again = measure.cache_info().hits - before
    return {"seen": ["alice-secret"] if again > (params["secret"] == "alice-secret") else []}
