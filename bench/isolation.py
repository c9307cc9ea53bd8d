"""What per-call isolation (red team 2, G2) and the rebuilt hash tables (G1) cost.

    .venv/bin/python bench/isolation.py [--count N] [--rounds R]

Measured in the same run, interleaved round by round:

- a warm call: one `WorkerPool` of one worker, `isolation="worker"` (the baseline);
- a per-call isolated call: the same pool with `isolation="call"`: each call gets a worker
  forked from the zygote for it (its replacement starts as soon as the previous call is
  over; back-to-back calls wait for it, which is what is measured here: the worst case);

on the trivial echo. Printed: each round's median per call and the ratio against the warm
call's median of the same round. Then, in this process, the state check of a module holding
a few dozen sets and dicts (`ModuleState.changed`, which now rebuilds them) against the same
check with the rebuild taken out, as a ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ECHO = '''"""Echoes a value."""
NAME = "echo"
DESCRIPTION = "Echoes a value."
PARAMS = {"type": "object"}


def run(params):
    return {"value": params.get("value")}
'''

TABLES = "\n".join(
    [f"S{i} = {{{', '.join(str(k) for k in range(i % 20))}}}" for i in range(40)]
    + [f"D{i} = {{{', '.join(f'{k}: {k}' for k in range(i % 20))}}}" for i in range(40)])


def calls(isolation: str, path: Path, count: int) -> float:
    from dyntools.gate.policy import load_policy
    from dyntools.sandbox import WorkerPool

    with WorkerPool(path, module_name="echo_v1", policy=load_policy(), size=1,
                    source=ECHO, isolation=isolation) as pool:
        pool.start()
        pool.call({"value": 0})
        times = []
        for n in range(count):
            started = time.perf_counter()
            pool.call({"value": n})
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def check(namespace: dict[str, Any], rebuild: bool, count: int) -> float:
    from dyntools.sandbox.worker.state import ModuleState

    state = ModuleState(namespace)
    if not rebuild:
        state.tables.entries = ()
    started = time.perf_counter()
    for _ in range(count):
        state.changed()
    return (time.perf_counter() - started) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "echo.py"
        path.write_text(ECHO, encoding="utf-8")
        for round_ in range(args.rounds):
            warm = calls("worker", path, args.count)
            isolated = calls("call", path, args.count)
            print(f"round {round_ + 1}: warm call {warm * 1e3:.2f} ms, per-call isolation "
                  f"{isolated * 1e3:.2f} ms ({isolated / warm:.1f}x the warm call)")
    namespace: dict[str, Any] = {}
    exec(compile(TABLES, "<tables>", "exec"), namespace)
    del namespace["__builtins__"]
    for round_ in range(args.rounds):
        without = check(namespace, False, 2000)
        with_rebuild = check(namespace, True, 2000)
        print(f"round {round_ + 1}: state check of 40 sets and 40 dicts {with_rebuild * 1e6:.1f} "
              f"us with the rebuild, {without * 1e6:.1f} us without "
              f"({with_rebuild / without:.2f}x)")


if __name__ == "__main__":
    main()
