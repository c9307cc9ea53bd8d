"""Finds the closest matches to a query among candidates."""
import difflib
from typing import Iterator, Literal

NAME = "fuzzy_match"
DESCRIPTION = "Ranks candidate strings by similarity to a query (difflib ratio), with a cut-off and a limit."
PARAMS = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "candidates": {"type": "array", "items": {"type": "string"}},
        "limit": {"type": "integer", "minimum": 1, "default": 3},
        "cutoff": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.6},
        "case": {"enum": ["sensitive", "insensitive"], "default": "insensitive"},
    },
    "required": ["query", "candidates"],
}
EXAMPLES = [
    {
        "params": {"query": "appel", "candidates": ["ape", "apple", "peach", "Apply", "puppy"]},
        "result": {
            "matches": [
                {"candidate": "apple", "score": 0.8},
                {"candidate": "Apply", "score": 0.8},
                {"candidate": "ape", "score": 0.75},
            ]
        },
    },
    {"params": {"query": "zzz", "candidates": ["abc"]}, "result": {"matches": []}},
]


def scored(query: str, candidates: list[str], case: Literal["sensitive", "insensitive"]) -> Iterator[tuple[float, str]]:
    fold = (lambda text: text) if case == "sensitive" else str.casefold
    matcher = difflib.SequenceMatcher(None, b=fold(query))  # b is cached, a varies
    for candidate in candidates:
        matcher.set_seq1(fold(candidate))
        yield matcher.ratio(), candidate


def run(params):
    results = [
        {"candidate": candidate, "score": round(score, 3)}
        for score, candidate in scored(params["query"], params["candidates"], params.get("case", "insensitive"))
        if score >= params.get("cutoff", 0.6)
    ]
    results.sort(key=lambda item: -item["score"])
    return {"matches": results[: params.get("limit", 3)]}
