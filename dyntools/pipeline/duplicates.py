"""Duplicates: two current tools that do the same job.

    pairs = candidates(tools, examples, alias_of)   # read alike, compatible PARAMS
    found = judged(pairs, results)                   # and the same results on each other's

A pair is a duplicate when all three hold, and only then:
1. it reads alike: the catalog's search similarity of one's name and description against the
   other's (catalog/search.py `similar`, 0..1) is at or above THRESHOLD (the threshold
   `ensure --reuse-similar` uses);
2. its PARAMS are compatible both ways: each tool's required properties are declared by the
   other with agreeing types, and each one's example params pass the other's schema;
3. it gives the same results on each other's examples: the params of both tools' examples
   (those without recorded exchanges, at most MAX_EXAMPLES from each) run on both, in the
   sandbox, and every one gives the same JSON on both (an error on either side is not the
   same). At least one such example must exist.
A pair that reads alike but gives different results is not a duplicate (two tools may share
words and do different jobs: `count_words` and `count_lines`). Only pairs over the threshold
with compatible PARAMS are run (step 3 costs sandboxed calls; steps 1 and 2 cost none).

An alias is not a duplicate: a name recorded as an alias of a tool (`ensure --reuse-similar`
records one; `Registry.alias_of`) is that tool under another name, by decision, so a pair in
which one names the other, or both name the same tool, is never reported, and an alias is
not a tool of its own here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from dyntools.pipeline.toolmeta import Tool
    from dyntools.pipeline.verify import Example

THRESHOLD = 0.6  # catalog/core.py SIMILAR_THRESHOLD: what --reuse-similar calls similar
MAX_PARTNERS = 8  # candidates per tool, best first
MAX_EXAMPLES = 16  # examples of each side run on the other

AliasOf = Callable[[str], "str | None"]


class Candidate(NamedTuple):
    """A pair that reads alike and takes the same params: its examples run on both."""

    tools: tuple[str, str]
    similarity: float
    params: tuple[Mapping[str, Any], ...]  # what runs on both (from both sides' examples)


def no_alias(name: str) -> str | None:
    return None


def alias_rule(registry: Any) -> AliasOf:
    """The registry's `alias_of(name)` (the tool an alias serves, or None), where the
    registry records aliases; a registry without them has none."""
    alias_of = getattr(registry, "alias_of", None)
    return alias_of if callable(alias_of) else no_alias


def is_alias_pair(a: str, b: str, alias_of: AliasOf) -> bool:
    """Whether one of the pair is an alias of the other, or both of the same tool."""
    target_a, target_b = alias_of(a), alias_of(b)
    return (target_a == b or target_b == a
            or (target_a is not None and target_a == target_b))


def comparable(examples: Sequence[Example]) -> list[dict[str, Any]]:
    """The params of the examples that can run on another tool (no recorded exchanges)."""
    return [dict(e.params) for e in examples if not e.http][:MAX_EXAMPLES]


def candidates(tools: Sequence[Tool], examples: Mapping[str, Sequence[Example]],
               alias_of: AliasOf = no_alias) -> list[Candidate]:
    """Pairs of `tools` that read alike (steps 1 and 2 of the module docstring), each once,
    with the params to run on both; sorted by name."""
    from dyntools.catalog.search import ToolIndex, params_compatible
    from dyntools.pipeline.verify import canonical

    index = ToolIndex()
    try:
        index.sync(tools)
        scores: dict[tuple[str, str], float] = {}
        for tool in tools:
            for hit in index.similar(tool.name, tool.description, limit=MAX_PARTNERS,
                                     exclude=tool.name):
                if hit.score < THRESHOLD:
                    continue
                pair = (min(tool.name, hit.name), max(tool.name, hit.name))
                scores[pair] = max(scores.get(pair, 0.0), hit.score)
    finally:
        index.close()
    by_name = {tool.name: tool for tool in tools}
    found: list[Candidate] = []
    for (a, b), score in sorted(scores.items()):
        if is_alias_pair(a, b, alias_of):
            continue
        side_a, side_b = comparable(examples.get(a, ())), comparable(examples.get(b, ()))
        if not (params_compatible(by_name[b], by_name[a].params, _as_examples(side_a))
                and params_compatible(by_name[a], by_name[b].params, _as_examples(side_b))):
            continue
        params: dict[str, Mapping[str, Any]] = {}
        for value in (*side_a, *side_b):
            params.setdefault(canonical(dict(value)), value)
        if params:
            found.append(Candidate((a, b), score, tuple(params.values())))
    return found


def _as_examples(params: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"params": dict(p)} for p in params]


def judged(pairs: Sequence[Candidate],
           results: Mapping[str, Mapping[str, tuple[str, str]]]) -> list[dict[str, Any]]:
    """The candidates that gave the same results on every compared example (step 3), as
    `health` entries: `tools` (the pair) and why."""
    from dyntools.pipeline.verify import canonical

    found = []
    for pair in pairs:
        a, b = pair.tools
        same = len(pair.params)
        for params in pair.params:
            key = canonical(dict(params))
            left, right = results.get(a, {}).get(key), results.get(b, {}).get(key)
            if left is None or right is None or left[0] != "ok" or left != right:
                break
        else:
            found.append({
                "tools": [a, b], "similarity": pair.similarity, "compared": same,
                "why": (f"names and descriptions read alike (similarity {pair.similarity:.2f}, "
                        f"at least {THRESHOLD}), PARAMS are compatible both ways, and the "
                        f"{same} example(s) of either run on both give the same results"),
            })
    return found
