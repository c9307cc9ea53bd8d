"""The end of a call (issue 26, F1-F5): what closing the call's window costs a warm call.

    .venv/bin/python bench/after_call.py [--count N] [--rounds R] [--baseline CHECKOUT]

Since the red team's F1-F5, the worker drops everything of a call, empties the library caches
and collects the garbage before its state check, and freezes everything alive after load
(`gc.freeze`) so that the collection scans only what calls made since. Measured in the same
run, interleaved round by round, each in its own child process with a pool of one warm worker:

- this checkout;
- this checkout without `gc.freeze()` (a copy of its `dyntools/` with that one line taken
  out): a full collection of every object the worker holds, on every call;
- `--baseline` (default: /work/main, the checkout before the change), if it exists: no
  collection, no cache emptying;

on two tools: the trivial echo, and the same echo importing a dozen allowed modules (a bigger
heap: what a full collection must scan). The median of each
round's calls is printed, and its ratio against the baseline's (or this checkout's) median of
the same round.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXEC_BENCH = HERE / "exec.py"  # its --warm-child runs a pool of one and times warm calls

ECHO = '''"""Echoes a value."""
NAME = "echo"
DESCRIPTION = "Echoes a value."
PARAMS = {"type": "object"}


def run(params):
    return {"value": params.get("value")}
'''

BIG_HEAP = '''"""Echoes a value, with a bigger heap."""
import calendar
import csv
import decimal
import difflib
import fractions
import ipaddress
import json
import statistics
import typing
import urllib.parse
import uuid
import zoneinfo

NAME = "echo"
DESCRIPTION = "Echoes a value, with a bigger heap."
PARAMS = {"type": "object"}


def run(params):
    return {"value": params.get("value")}
'''


def without_freeze(folder: Path) -> Path:
    """A copy of this checkout's package with the worker's `gc.freeze()` taken out."""
    target = folder / "nofreeze"
    shutil.copytree(ROOT / "dyntools", target / "dyntools",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "allowlist.toml", target / "allowlist.toml")
    process = target / "dyntools" / "sandbox" / "worker" / "process.py"
    text = process.read_text(encoding="utf-8")
    if "    gc.freeze()\n" not in text:
        raise SystemExit("this checkout's worker has no gc.freeze() to take out")
    process.write_text(text.replace("    gc.freeze()\n", ""), encoding="utf-8")
    return target


def warm_median(checkout: Path, tool: Path, count: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve()), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, str(EXEC_BENCH), "--warm-child", str(tool),
                           str(count)], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the warm calls of {checkout} failed:\n{done.stderr}")
    answer = json.loads(done.stdout)
    if not str(answer["dyntools"]).startswith(str(checkout.resolve())):
        raise SystemExit(f"ran the dyntools at {answer['dyntools']}, not {checkout}")
    return statistics.median(float(x) for x in answer["samples"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, default=Path("/work/main"))
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="dyntools-after-call-"))
    try:
        tools = {"echo": folder / "echo.py", "big heap": folder / "big_heap.py"}
        tools["echo"].write_text(ECHO, encoding="utf-8")
        tools["big heap"].write_text(BIG_HEAP, encoding="utf-8")
        checkouts = {"this checkout": ROOT, "without gc.freeze": without_freeze(folder)}
        if (args.baseline / "dyntools").is_dir():
            checkouts = {"baseline " + str(args.baseline): args.baseline, **checkouts}
        print(f"warm call, median of {args.count} per round; load average "
              + " ".join(f"{x:.2f}" for x in os.getloadavg()))
        for tool_name, tool in tools.items():
            for round_number in range(1, args.rounds + 1):
                medians = {label: warm_median(path, tool, args.count)
                           for label, path in checkouts.items()}
                base = next(iter(medians.values()))
                for label, median in medians.items():
                    print(f"  {tool_name:9} round {round_number}  {label:28} "
                          f"{median * 1e6:8.1f} us  {median / base:5.2f}x")
        print("load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
