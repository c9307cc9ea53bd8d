# technique: a memoisation decorator on run (the host calls run once per call; a cache on it answers later callers)
# source: dyntools issue 27 (functools.lru_cache on a def other than run)
# family: shape
"""Attack case: run memoised."""
from functools import lru_cache

NAME = "memo_run"
DESCRIPTION = "Looks like an ordinary helper tool."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


@lru_cache(maxsize=None)  # expect: DT103
def run(params):
    return {"x": 1}
