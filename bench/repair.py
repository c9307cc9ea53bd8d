"""Repair (issue 32): deliberately wrong versions, each with the counterexample that shows it,
repaired (1) through the file generator (a scripted second attempt: the first is the wrong
version itself, the file holds the fix) and (2) through the Anthropic generator, its real SDK
client talking to a stub server on 127.0.0.1 (tests/generators/stub_server.py) that answers
first with a wrong fix and then with the right one, so every repair goes round the loop once.

    .venv/bin/python bench/repair.py [--rounds 1]

Printed: how many end repaired (verified and current), and the cost per repair: wall time
host-side (the stub answers at once, so model latency is excluded), model requests, and the
prompt the model is sent (characters, a proxy for input tokens), against the baseline of the
same run: `ensure --new-version` of the fixed file (the same gate, load, verify and persist,
without reproducing the failure).
"""

from __future__ import annotations

import argparse
import io
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from dyntools.base.log import configure_logging  # noqa: E402
from dyntools.errors import DyntoolsError  # noqa: E402
from dyntools.gate.policy import load_policy  # noqa: E402
from dyntools.generators import AnthropicConfig, AnthropicGenerator  # noqa: E402
from dyntools.generators.file import FileGenerator  # noqa: E402
from dyntools.pipeline.dyntools import Dyntools  # noqa: E402
from dyntools.registry import Registry  # noqa: E402
from tests.generators.flavors import ANTHROPIC  # noqa: E402
from tests.generators.stub_server import StubServer  # noqa: E402


def tool(name: str, description: str, params: str, examples: str, body: str,
         imports: str = "") -> str:
    return (f'"""{description}"""\n{imports}\nNAME = "{name}"\nDESCRIPTION = "{description}"\n'
            f"PARAMS = {params}\nEXAMPLES = {examples}\n\n\ndef run(params):\n{body}")


TEXT = '{"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}'
NUMS = ('{"type": "object", "properties": {"values": {"type": "array", "items": {"type": '
        '"number"}}}, "required": ["values"]}')

# name -> (wrong source, fixed source, counterexample params, expected result)
CASES: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {}


def case(name: str, description: str, params: str, examples: str, wrong: str, fixed: str,
         counter: dict[str, Any], expected: dict[str, Any], imports: str = "") -> None:
    CASES[name] = (tool(name, description, params, examples, wrong, imports),
                   tool(name, description, params, examples, fixed, imports), counter, expected)


case("slug", "Turns a title into a URL slug.", TEXT,
     '[{"params": {"text": "Hello World"}, "result": {"slug": "hello-world"}}]',
     '    return {"slug": re.sub(r"[^a-z0-9]+", "-", params["text"].lower())}\n',
     '    return {"slug": re.sub(r"[^a-z0-9]+", "-", params["text"].lower()).strip("-")}\n',
     {"text": "Hi there!"}, {"slug": "hi-there"}, "import re\n")
case("word_count", "Counts the words of a text.", TEXT,
     '[{"params": {"text": "a b"}, "result": {"words": 2}}]',
     '    return {"words": len(params["text"].split(" "))}\n',
     '    return {"words": len(params["text"].split())}\n',
     {"text": "a  b\\n"}, {"words": 2})
case("title_case", "Capitalises each word of a text.", TEXT,
     '[{"params": {"text": "a b"}, "result": {"text": "A B"}}]',
     '    return {"text": params["text"].title()}\n',
     '    return {"text": " ".join(w[:1].upper() + w[1:] for w in params["text"].split(" "))}\n',
     {"text": "it's ok"}, {"text": "It's Ok"})
case("mean_value", "The mean of a list of numbers.", NUMS,
     '[{"params": {"values": [1, 3]}, "result": {"mean": 2.0}}]',
     '    return {"mean": sum(params["values"]) / len(params["values"])}\n',
     '    values = params["values"]\n    return {"mean": sum(values) / len(values) if values '
     'else None}\n', {"values": []}, {"mean": None})
case("dedupe", "Removes repeated items, keeping the first of each.", NUMS,
     '[{"params": {"values": [1, 1]}, "result": {"values": [1]}}]',
     '    return {"values": sorted(set(params["values"]))}\n',
     '    seen = []\n    for v in params["values"]:\n        if v not in seen:\n'
     '            seen.append(v)\n    return {"values": seen}\n',
     {"values": [3, 1, 3]}, {"values": [3, 1]})
case("vowel_count", "Counts the vowels of a text.", TEXT,
     '[{"params": {"text": "banana"}, "result": {"vowels": 3}}]',
     '    return {"vowels": sum(1 for c in params["text"] if c in "aeiou")}\n',
     '    return {"vowels": sum(1 for c in params["text"].lower() if c in "aeiou")}\n',
     {"text": "AEIOU"}, {"vowels": 5})
case("celsius", "Converts Fahrenheit to Celsius, to one decimal.",
     '{"type": "object", "properties": {"f": {"type": "number"}}, "required": ["f"]}',
     '[{"params": {"f": 212}, "result": {"c": 100.0}}]',
     '    return {"c": round((params["f"] - 32) * 5 / 9)}\n',
     '    return {"c": round((params["f"] - 32) * 5 / 9, 1)}\n',
     {"f": 100}, {"c": 37.8})
case("reverse_words", "Reverses the order of the words of a text.", TEXT,
     '[{"params": {"text": "a b"}, "result": {"text": "b a"}}]',
     '    return {"text": params["text"][::-1]}\n',
     '    return {"text": " ".join(reversed(params["text"].split()))}\n',
     {"text": "one two"}, {"text": "two one"})
case("max_value", "The largest of a list of numbers.", NUMS,
     '[{"params": {"values": [1, 3]}, "result": {"max": 3}}]',
     '    return {"max": max(params["values"])}\n',
     '    values = params["values"]\n    return {"max": max(values) if values else None}\n',
     {"values": []}, {"max": None})
case("initials", "The initials of a name, upper case.", TEXT,
     '[{"params": {"text": "Ada Lovelace"}, "result": {"initials": "AL"}}]',
     '    return {"initials": "".join(w[0] for w in params["text"].split())}\n',
     '    return {"initials": "".join(w[0] for w in params["text"].split()).upper()}\n',
     {"text": "grace hopper"}, {"initials": "GH"})


def fresh(workdir: Path, label: str) -> Path:
    root = workdir / label
    registry = Registry.open(root, load_policy())
    for name, (wrong, _, _, _) in CASES.items():
        registry.add_version(name, wrong, {"generator": "bench"})
    return root


def by_file(workdir: Path) -> tuple[int, list[float]]:
    root = fresh(workdir, "file")
    done, times = 0, []
    with Dyntools(root, allow_unreviewed_repairs=True) as dt:
        for name, (_, fixed, counter, expected) in CASES.items():
            started = time.perf_counter()
            try:
                dt.repair(name, counter, expected,
                          generator=FileGenerator(stdin=io.BytesIO(fixed.encode())))
                done += dt.call(name, counter) == expected
            except DyntoolsError as exc:
                print(f"  file: {name} not repaired: {exc.reason}: {exc.message[:120]}")
            times.append((time.perf_counter() - started) * 1000)
    return done, times


def by_model(workdir: Path) -> tuple[int, list[float], list[int], list[int]]:
    root = fresh(workdir, "model")
    done, times, requests, prompts = 0, [], [], []
    with StubServer() as stub, Dyntools(root, allow_unreviewed_repairs=True) as dt:
        generator = AnthropicGenerator(AnthropicConfig(
            model="claude-test", base_url=stub.url, max_retries=0, timeout=5.0),
            policy=load_policy(), environ={"ANTHROPIC_API_KEY": "bench-key"})
        for name, (wrong, fixed, counter, expected) in CASES.items():
            seen = len(stub.requests)
            # a wrong fix first (the wrong version again), then the right one
            stub.script(ANTHROPIC.answer(f"```python\n{wrong}```"),
                        ANTHROPIC.answer(f"```python\n{fixed}```"))
            started = time.perf_counter()
            try:
                result = dt.repair(name, counter, expected, generator=generator)
                done += dt.call(name, counter) == expected and len(result.attempts) == 2
            except DyntoolsError as exc:
                print(f"  model: {name} not repaired: {exc.reason}: {exc.message[:120]}")
            times.append((time.perf_counter() - started) * 1000)
            sent = stub.requests[seen:]
            requests.append(len(sent))
            prompts.append(sum(len(r.body) for r in sent))
    return done, times, requests, prompts


def baseline(workdir: Path) -> list[float]:
    root = fresh(workdir, "baseline")
    times = []
    with Dyntools(root) as dt:
        for name, (_, fixed, _, _) in CASES.items():
            started = time.perf_counter()
            dt.ensure(name, new_version=True, contract_change=True,
                      generator=FileGenerator(stdin=io.BytesIO(fixed.encode())))
            times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    configure_logging("error")
    ok = True
    for _ in range(args.rounds):
        workdir = Path(tempfile.mkdtemp(prefix="dyntools-repair-bench-"))
        try:
            base = statistics.median(baseline(workdir))
            done, times = by_file(workdir)
            median = statistics.median(times)
            print(f"baseline: ensure --new-version of the fixed file, median {base:7.1f} ms")
            print(f"file generator:      {done}/{len(CASES)} repaired, median {median:7.1f} ms "
                  f"a repair ({median / base:.1f}x the baseline), 1 attempt each, no model "
                  "request")
            done_m, times_m, requests, prompts = by_model(workdir)
            print(f"anthropic (stub):    {done_m}/{len(CASES)} repaired after 2 attempts, median "
                  f"{statistics.median(times_m):7.1f} ms a repair "
                  f"({statistics.median(times_m) / base:.1f}x the baseline), "
                  f"{statistics.mean(requests):.1f} model requests and "
                  f"{statistics.mean(prompts) / 1000:.1f} kB of requests a repair")
            ok = ok and done == done_m == len(CASES)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
