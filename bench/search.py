"""Search over a large catalog: indexing, keeping the index in step, queries, `similar`.

A registry of N persisted tools (default 1,000; written through the registry, so opening it
re-gates and hash-checks them all) is opened behind a `Catalog`. The baseline, measured in the
same run, is `catalog.list_tools()`: the listing every search must read anyway to stay in step
with the registry. Reported against it: the first search (builds the in-memory FTS5 index),
a search with nothing changed (re-sync + query), a search after one new version (re-indexes
one row), and `similar` (what `ensure --description` runs before generating).

    .venv/bin/python bench/search.py [--tools N] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dyntools.base.log import configure_logging
from dyntools.catalog.core import Catalog
from dyntools.generators import ToolSpec
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry

WORDS = ("count", "words", "convert", "temperature", "parse", "date", "slug", "title",
         "sum", "column", "csv", "roman", "numeral", "distance", "letters", "url", "hash")


def source(index: int) -> str:
    a, b, c = (WORDS[(index * k) % len(WORDS)] for k in (1, 3, 7))
    return (f'"""Tool {index}."""\n\nNAME = "tool_{index}"\n'
            f'DESCRIPTION = "Does {a} {b} with {c}, variant {index}."\n'
            'PARAMS = {"type": "object", "properties": {"text": {"type": "string", '
            f'"description": "the {c} input"}}}}, "required": ["text"]}}\n\n\n'
            'def run(params):\n    return {"n": len(params["text"])}\n')


def median_ms(fn: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    configure_logging("error")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "registry"
        registry = Registry.open(root)
        for index in range(args.tools):
            registry.add_version(f"tool_{index}", source(index), {"generator": "bench"})
        with Catalog(Dyntools(root), generate=False) as catalog:
            catalog.list_tools()  # warm the metadata cache, as a running server has it
            baseline = median_ms(catalog.list_tools, args.rounds)
            started = time.perf_counter()
            catalog.search("count words")
            first = (time.perf_counter() - started) * 1000
            steady = median_ms(lambda: catalog.search("convert the temperature of a csv"),
                               args.rounds)
            similar = median_ms(lambda: catalog.similar(ToolSpec(
                "count_words", "Counts the words of a text.")), args.rounds)
            registry.add_version("tool_0", source(0).replace("variant", "revised"),
                                 {"generator": "bench"})
            catalog.dyntools.registry.refresh("tool_0")
            started = time.perf_counter()
            catalog.search("count words")
            changed = (time.perf_counter() - started) * 1000
    print(f"{args.tools} tools; baseline list_tools(): {baseline:.2f} ms (median)")
    for label, value in [("first search (builds the index)", first),
                         ("search, nothing changed", steady),
                         ("search after one new version", changed),
                         ("similar (ensure --description)", similar)]:
        print(f"  {label:<34} {value:8.2f} ms  {value / baseline:5.2f}x baseline")


if __name__ == "__main__":
    main()
