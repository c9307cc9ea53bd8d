# technique: a decorator named lru_cache that is not functools' (rebound in its scope)
# source: dyntools issue 27 (functools.lru_cache on a def other than run)
# family: shape
"""Attack case: a name that looks like functools.lru_cache."""

NAME = "rebound_memo"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    from functools import lru_cache
    lru_cache = print

    @lru_cache  # expect: DT103
    def helper(value):
        return value

    return {"x": helper}
