"""`dyntools health` on a registry of 1,000 versions (200 current tools), built by this
script: the target is within 30 s on 2 cores with every planted regression found (issue 32).

    .venv/bin/python bench/health.py [--tools 200] [--versions 5] [--regressions 20]
                                     [--quarantined 5] [--duplicates 5] [--jobs N] [--tmpfs]

What is planted, and must be found exactly:
- `--regressions` tools whose current version's provenance records an example it fails now
  (as after a dependency or allow-list change): one `regressions` entry each;
- `--quarantined` tools whose current version's file is edited on disk after it was written:
  an entry with reason `quarantined` each (the version below it is re-verified instead);
- `--duplicates` pairs of tools with the same code and descriptions that read alike: one
  `duplicates` entry each. Every other tool shares description words with several others
  (so similarity finds candidates and their examples run on each other), and computes a
  little differently (so none of them is a duplicate).

Baselines measured in the same run: the eager open of the same registry (what `dyntools
review` does: read, hash and re-gate every version), and the same health check one version
at a time (`jobs=1`). Each line prints its time and its ratio to the open.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from dyntools.base.log import configure_logging
from dyntools.gate.policy import load_policy
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry

TOOL = '''"""@DESCRIPTION@"""
import re
import unicodedata

NAME = "@NAME@"
DESCRIPTION = "@DESCRIPTION@"
PARAMS = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "top": {"type": "integer", "minimum": 1, "maximum": 20},
    },
    "required": ["text"],
}
EXAMPLES = [
    {"params": {"text": "a b a", "top": 1}, "result": @FIRST@},
    {"params": {"text": "Crème brûlée, crème!", "top": 2}, "result": @SECOND@},
]
SCALE = @SCALE@
STOPWORDS = ["the", "a", "an", "and", "or", "of", "to", "in"]


def normalise(text):
    text = unicodedata.normalize("NFKD", text)
    return text.encode("ascii", "ignore").decode("ascii").lower()


def words_of(text):
    return [w for w in re.findall(r"[a-z0-9']+", normalise(text)) if w]


def count(words):
    counts = {}
    for word in words:
        if word in STOPWORDS and word != "a":
            continue
        counts[word] = counts.get(word, 0) + SCALE
    return counts


def top_words(counts, top):
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [[word, n] for word, n in ranked[:top]]


def run(params):
    words = words_of(params["text"])
    top = params.get("top", 3)
    return {"words": len(words) * SCALE, "top": top_words(count(words), top)}
'''

VERBS = ["count", "rank", "tally", "measure", "score", "weigh", "summarise", "list"]
NOUNS = ["words", "terms", "tokens", "entries", "phrases"]
OBJECTS = ["text", "document", "message", "page", "note"]


def combo(base: int) -> tuple[str, str, str]:
    return (VERBS[base % len(VERBS)], NOUNS[base // len(VERBS) % len(NOUNS)],
            OBJECTS[base // (len(VERBS) * len(NOUNS)) % len(OBJECTS)])


def result_for(text: str, top: int, scale: int) -> dict[str, object]:
    """What the tool computes (the bench's own reference, to write correct EXAMPLES)."""
    import re
    import unicodedata

    norm = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = [w for w in re.findall(r"[a-z0-9']+", norm.lower()) if w]
    stop = {"the", "an", "and", "or", "of", "to", "in"}
    counts: dict[str, int] = {}
    for word in words:
        if word not in stop:
            counts[word] = counts.get(word, 0) + scale
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return {"words": len(words) * scale, "top": [[w, n] for w, n in ranked[:top]]}


def source(name: str, description: str, scale: int, variant: int) -> str:
    first = result_for("a b a", 1, scale)
    second = result_for("Crème brûlée, crème!", 2, scale)
    return (TOOL.replace("@NAME@", name).replace("@DESCRIPTION@", description)
            .replace("@FIRST@", json.dumps(first)).replace("@SECOND@", json.dumps(second))
            .replace("@SCALE@", str(scale)) + f"\nBUILD = {variant}\n")


def build(root: Path, tools: int, versions: int, regressions: int, quarantined: int,
          duplicates: int) -> tuple[set[str], set[str], set[tuple[str, str]]]:
    """The registry, and what was planted: regressed tools, quarantined tools, duplicate
    pairs."""
    registry = Registry.open(root, load_policy())
    pairs: set[tuple[str, str]] = set()
    names: list[str] = []
    for index in range(tools):
        verb, noun, thing = combo(index)
        # a tool of each kind is named by its job; a twin says the same words in another order
        twin = index >= tools - 2 * duplicates and (tools - index) % 2 == 0
        base = index - 1 if twin else index
        verb, noun, thing = combo(base)
        names.append(f"{thing}_{noun}_{verb}" if twin else f"{verb}_{noun}_{thing}"
                     + (f"_{index // 200}" if index >= 200 else ""))
    regressed = set(names[0:regressions * 3:3])
    edited = set(names[1:quarantined * 3:3])
    for index, name in enumerate(names):
        twin = index >= tools - 2 * duplicates and (tools - index) % 2 == 0
        base = index - 1 if twin else index
        verb, noun, thing = combo(base)
        description = f"{verb.capitalize()}s the {noun} of a {thing}."
        scale = 1 + base  # every original computes a little differently
        if twin:
            pairs.add((min(names[base], name), max(names[base], name)))
        for version in range(1, versions + 1):
            text = source(name, description, scale, version)
            examples = [{"params": {"text": "a b a", "top": 1},
                         "result": result_for("a b a", 1, scale)}]
            if name in regressed and version == versions:
                examples.append({"params": {"text": "x y", "top": 1},
                                 "result": {"words": 99, "top": []}})  # no longer true
            registry.add_version(name, text, {"generator": "bench",
                                              "verification": {"examples": examples}})
    for name in edited:
        path = root / name / f"v{versions}.py"
        os.chmod(path, 0o644)
        path.write_text(path.read_text() + "# edited on disk\n")
    return regressed, edited, pairs


def timed_health(root: Path, jobs: int | None) -> tuple[float, dict[str, object]]:
    registry = Registry.open(root, load_policy())
    with Dyntools(registry, keep_failed_calls=False) as dt:
        started = time.perf_counter()
        report = dt.health(jobs=jobs)
        return time.perf_counter() - started, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("--regressions", type=int, default=20)
    parser.add_argument("--quarantined", type=int, default=5)
    parser.add_argument("--duplicates", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--tmpfs", action="store_true", help="build on /dev/shm")
    parser.add_argument("--no-serial", action="store_true",
                        help="skip the one-at-a-time baseline")
    args = parser.parse_args()
    configure_logging("error")
    parent = "/dev/shm" if args.tmpfs else None
    workdir = Path(tempfile.mkdtemp(prefix="dyntools-health-bench-", dir=parent))
    root = workdir / "registry"
    try:
        started = time.perf_counter()
        regressed, edited, pairs = build(root, args.tools, args.versions, args.regressions,
                                         args.quarantined, args.duplicates)
        print(f"built {args.tools} tools x {args.versions} versions in "
              f"{time.perf_counter() - started:.1f} s (load average "
              f"{os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)")
        started = time.perf_counter()
        Registry.open(root, load_policy())
        opened = time.perf_counter() - started
        print(f"baseline: eager open (review's re-gate of {args.tools * args.versions} "
              f"versions)  {opened:6.2f} s")
        took, report = timed_health(root, args.jobs)
        checked = report["checked"]
        assert isinstance(checked, dict)
        print(f"health, {checked['jobs']} at a time"
              f"{'':24}{took:6.2f} s  {took / opened:5.1f}x the open  "
              f"(target 30 s: {'met' if took <= 30 else 'MISSED'})")
        if not args.no_serial:
            serial, _ = timed_health(root, 1)
            print(f"health, one at a time{'':24}{serial:6.2f} s  {serial / opened:5.1f}x the "
                  f"open  (parallel: {serial / took:.1f}x faster)")
        found = report["regressions"]
        assert isinstance(found, list)
        wrong = {e["tool"] for e in found if e.get("reason") != "quarantined"}
        quarantined = {e["tool"] for e in found if e.get("reason") == "quarantined"}
        duplicates = {tuple(e["tools"]) for e in report["duplicates"]}  # type: ignore[union-attr]
        print(f"regressions: {len(wrong)} of {len(regressed)} planted found, "
              f"{len(wrong - regressed)} unexpected; quarantined: {len(quarantined)} of "
              f"{len(edited)}; duplicates: {len(duplicates & pairs)} of {len(pairs)}, "
              f"{len(duplicates - pairs)} unexpected (of {checked['duplicate_candidates']} "
              f"candidate pairs run on each other); unverified: "
              f"{len(report['unverified'])}; examples run: {checked['examples']}")  # type: ignore[arg-type]
        exact = (wrong == regressed and quarantined == edited and duplicates == pairs
                 and not report["unverified"])
        print("every planted finding found, nothing else" if exact else "MISMATCH")
        return 0 if exact else 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
