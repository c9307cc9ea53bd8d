"""Code mode: a task of N tool calls as N MCP round trips, against one `run_code`.

Part 1, over MCP. `dyntools serve-mcp --run-code` runs as a process, driven over its pipes
with JSON-RPC lines (handshake era, as bench/mcp.py does). The task: the total word count of
N texts (N = 3, 10, 30) with the registry's `word_count` tool. Done two ways in the same
session, alternately, ROUNDS times each:

    tool calls  N `tools/call` of word_count, one round trip each; the client adds them up
    run_code    one `tools/call` of run_code: a script that calls word_count N times and
                answers with the total (the reply also carries its trace: one entry a call)

Printed per N: round trips with the client, bytes exchanged with it (every JSON-RPC line
written and read, both ways) and the median wall time, side by side, and their ratios. The
target: at N = 10, one round trip against 10, and fewer bytes. Wall time here is the
server's alone; an agent pays a model's turn per round trip on top, which this bench cannot
measure and the round trips count instead.

Part 2, in process: `run_code` of a script making one tool call, against its parts measured
in the same run: one worker start (a locked-down worker started and called once, the way a
script's worker is) and the tool's own warm call (`Dyntools.call`, the tool's pool warm).
The target: run_code within 2 ms of their sum.

    .venv/bin/python bench/code_mode.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from jsonrpc_lines import Session

SIZES = (3, 10, 30)
SCRIPT = ("total = 0\nfor text in inputs['texts']:\n"
          "    total += tools.word_count(text=text)['words']\nresult = {'total': total}\n")
TRIVIAL = '''"""Answers at once."""

NAME = "trivial"
DESCRIPTION = "Answers at once."
PARAMS = {"type": "object"}


def run(params):
    return {"ok": True}
'''


def texts(count: int) -> list[str]:
    return [f"text number {index} has a few words in it" for index in range(count)]


def with_tool_calls(session: Session, items: list[str]) -> tuple[int, int, float, int]:
    """(round trips, bytes, seconds, total) for the task as one tools/call per text."""
    before, started = session.counted(), time.perf_counter()
    total = 0
    for text in items:
        answer = session.request("tools/call", {"name": "word_count",
                                                "arguments": {"text": text}})
        total += answer["result"]["structuredContent"]["words"]
    return len(items), session.counted() - before, time.perf_counter() - started, total


def with_run_code(session: Session, items: list[str]) -> tuple[int, int, float, int]:
    """(round trips, bytes, seconds, total) for the task as one run_code."""
    before, started = session.counted(), time.perf_counter()
    answer = session.request("tools/call", {"name": "run_code", "arguments": {
        "code": SCRIPT, "inputs": {"texts": items}}})
    value = answer["result"]["structuredContent"]
    if value.get("status") != "ok":
        raise SystemExit(f"run_code did not end ok: {value}")
    return 1, session.counted() - before, time.perf_counter() - started, value["result"]["total"]


def over_mcp(registry: Path, base: Path, rounds: int) -> None:
    dyntools = shutil.which("dyntools", path=str(Path(sys.executable).parent))
    if dyntools is None:
        raise SystemExit("no dyntools console script beside this interpreter: pip install -e .")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DYNTOOLS_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    session = Session([dyntools, "serve-mcp", "--registry", str(registry), "--run-code",
                       "--no-watch"], env, base)
    try:
        session.request("initialize", {"protocolVersion": LATEST_HANDSHAKE_VERSION,
                                       "capabilities": {},
                                       "clientInfo": {"name": "bench", "version": "0"}})
        session.send("notifications/initialized", notification=True)
        session.request("tools/list")
        for _ in range(3):  # warm: the tool's pool, the run_code path's imports
            with_tool_calls(session, texts(3))
            with_run_code(session, texts(3))
        print(f"Part 1: the total word count of N texts over MCP (serve-mcp --run-code, "
              f"stdio); median of {rounds} alternating rounds")
        print(f"  {'N':>3} {'way':<11} {'round trips':>12} {'bytes':>9} {'wall ms':>9}")
        for size in SIZES:
            items = texts(size)
            calls: list[tuple[int, int, float, int]] = []
            codes: list[tuple[int, int, float, int]] = []
            for _ in range(rounds):
                calls.append(with_tool_calls(session, items))
                codes.append(with_run_code(session, items))
            assert {c[3] for c in calls} == {c[3] for c in codes}, "the two ways disagree"
            rows = {"tool calls": calls, "run_code": codes}
            medians = {way: (rows[way][0][0], statistics.median(r[1] for r in rows[way]),
                             statistics.median(r[2] for r in rows[way])) for way in rows}
            for way, (trips, size_bytes, seconds) in medians.items():
                print(f"  {size:>3} {way:<11} {trips:>12} {size_bytes:>9.0f} "
                      f"{seconds * 1000:>9.1f}")
            trips_ratio = medians["tool calls"][0] / medians["run_code"][0]
            bytes_ratio = medians["tool calls"][1] / medians["run_code"][1]
            wall_ratio = medians["run_code"][2] / medians["tool calls"][2]
            verdict = ""
            if size == 10:
                verdict = ("; target (1 round trip against 10, fewer bytes): "
                           + ("OK" if trips_ratio >= 10 and bytes_ratio > 1 else "MISSED"))
            print(f"      {trips_ratio:.0f}x fewer round trips, {bytes_ratio:.2f}x fewer bytes, "
                  f"wall time {wall_ratio:.2f}x the tool calls'{verdict}")
    finally:
        session.close()


def in_process(registry: Path, base: Path, rounds: int) -> None:
    from dyntools.gate.policy import load_policy
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.sandbox.pool import run_once_outcome

    trivial = base / "trivial.py"
    trivial.write_text(TRIVIAL, "utf-8")
    policy = load_policy()
    one_call = "result = tools.word_count(text=inputs['text'])\n"
    with Dyntools(registry, pool_size=1) as dt:
        for _ in range(3):  # warm: imports, the tool's pool
            dt.call("word_count", {"text": "a b"})
            dt.run_code(one_call, {"text": "a b"})
            run_once_outcome(trivial, {}, policy=policy, source=TRIVIAL)
        starts, warm, runs = [], [], []
        for _ in range(rounds):
            started = time.perf_counter()
            run_once_outcome(trivial, {}, policy=policy, source=TRIVIAL)
            starts.append(time.perf_counter() - started)
            for _ in range(20):
                started = time.perf_counter()
                dt.call("word_count", {"text": "a b"})
                warm.append(time.perf_counter() - started)
            started = time.perf_counter()
            outcome = dt.run_code(one_call, {"text": "a b"})
            runs.append(time.perf_counter() - started)
            if outcome.status != "ok":
                raise SystemExit(f"run_code did not end ok: {outcome.as_dict()}")
    start, call, run = (statistics.median(v) * 1000 for v in (starts, warm, runs))
    over = run - start - call
    print(f"Part 2: run_code of a script making one tool call, in process; median of "
          f"{rounds} rounds")
    print(f"  one worker start (started, called once) {start:8.2f} ms")
    print(f"  the tool's warm call (Dyntools.call)    {call:8.2f} ms")
    print(f"  run_code, one tool call                 {run:8.2f} ms")
    print(f"  run_code over their sum: {over:+.2f} ms; target within 2 ms: "
          f"{'OK' if over <= 2.0 else 'MISSED'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    from dyntools.base.log import configure_logging
    from dyntools.generators.offline import template_source
    from dyntools.registry import Registry

    configure_logging("error")
    base = Path(tempfile.mkdtemp(prefix="dyntools-code-", dir=os.environ.get("TMPDIR", "/tmp")))
    try:
        registry = base / "registry"
        Registry.open(registry, create=True).add_version(
            "word_count", template_source("word_count"), {"generator": "bench"})
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        over_mcp(registry, base, args.rounds)
        in_process(registry, base, args.rounds)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
