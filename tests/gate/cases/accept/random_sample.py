"""Reproducible random sampling and shuffling."""
import random
from typing import Optional

NAME = "random_sample"
DESCRIPTION = "Draws a reproducible random sample, shuffle or weighted choice from a list, given a seed."
PARAMS = {
    "type": "object",
    "properties": {
        "items": {"type": "array", "minItems": 1},
        "k": {"type": "integer", "minimum": 1},
        "mode": {"enum": ["sample", "shuffle", "choices"], "default": "sample"},
        "weights": {"type": "array", "items": {"type": "number", "minimum": 0}},
        "seed": {"type": "integer"},
    },
    "required": ["items"],
}
EXAMPLES = [
    {"params": {"items": [1, 2, 3, 4, 5], "k": 2, "seed": 42}, "result": {"result": [1, 5]}},
    {"params": {"items": ["a", "b", "c"], "mode": "shuffle", "seed": 7}, "result": {"result": ["c", "a", "b"]}},
    {"params": {"items": ["x", "y"], "k": 9, "seed": 1}, "result": {"error": "k (9) is larger than the list (2)"}},
]


def run(params):
    # A private generator: the seed affects only this call, never the module-wide state.
    seed: Optional[int] = params.get("seed")
    rng = random.Random(seed)
    items = list(params["items"])
    mode = params.get("mode", "sample")
    k = params.get("k", 1)
    if mode == "shuffle":
        rng.shuffle(items)
        return {"result": items}
    if mode == "choices":
        return {"result": rng.choices(items, weights=params.get("weights"), k=k)}
    if k > len(items):
        return {"error": f"k ({k}) is larger than the list ({len(items)})"}
    return {"result": rng.sample(items, k)}
