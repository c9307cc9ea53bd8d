"""End-to-end `ensure` with the offline generator, an `ensure` of a tool that exists, and `call`.

For each round a fresh registry receives `slugify_text` through every station (lookup,
generate, gate, load, verify, persist, activate); the station times come from the pipeline's
own events, the same numbers the audit log records (the audit file is on, as in the CLI). Then
the existing tool is ensured again (a lookup) and called, warm, through `Dyntools.call`
(params check, runtime, audit event) next to the baselines measured in the same run: the
runtime alone and a bare warm `WorkerPool.call`, which is the floor for a sandboxed call.

    .venv/bin/python bench/ensure.py [--rounds N] [--calls N] [--dir PATH]

`--dir` chooses where the registries go: persist and activate fsync, so the file system
matters (a tmpfs hides what a disk costs).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dyntools.base.log import configure_logging
from dyntools.pipeline.dyntools import Dyntools
from dyntools.pipeline.events import STATIONS
from dyntools.registry import module_name_for
from dyntools.sandbox import WorkerPool

TOOL = "slugify_text"
PARAMS = {"text": "Hello World, from the bench"}


def median_p90(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]


def timed(fn: Callable[[], object], n: int) -> list[float]:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--dir", default=None, help="where the registries go")
    args = parser.parse_args()

    base = Path(tempfile.mkdtemp(prefix="dyntools-bench-ensure-", dir=args.dir))
    stations: dict[str, list[float]] = {s: [] for s in ("lookup", *STATIONS)}
    ensure_new: list[float] = []
    ensure_existing: list[float] = []
    first_call: list[float] = []
    try:
        configure_logging("warning", audit_path=base / "audit.log")
        for round_no in range(args.rounds):
            with Dyntools(base / f"reg{round_no}") as dt:
                started = time.perf_counter()
                result = dt.ensure(TOOL)
                ensure_new.append((time.perf_counter() - started) * 1000)
                assert result.created
                for event in result.stations:
                    stations[event.station].append(event.duration_ms or 0.0)
                ensure_existing += timed(lambda dt=dt: dt.ensure(TOOL), 20)
                first_call += timed(lambda dt=dt: dt.call(TOOL, PARAMS), 1)

        with Dyntools(base / "reg0") as dt:
            dt.call(TOOL, PARAMS)
            record = dt.registry.current(TOOL)
            assert record is not None
            runtime = dt.runtime  # the runtime the pipeline calls through
            for _ in range(200):  # warm both pool workers and the caches
                dt.call(TOOL, PARAMS)
            pipeline_call = timed(lambda: dt.call(TOOL, PARAMS), args.calls)
            runtime_call = timed(lambda: runtime.call(TOOL, PARAMS), args.calls)
            source = dt.registry.verified_source(TOOL, record.version).decode()
            with WorkerPool(record.path, module_name=module_name_for(TOOL, record.version),
                            policy=dt.policy, size=1, source=source) as pool:
                for _ in range(200):
                    pool.call(PARAMS)
                pool_call = timed(lambda: pool.call(PARAMS), args.calls)
    finally:
        shutil.rmtree(base, ignore_errors=True)

    print(f"registries under {base} ({args.rounds} rounds, {args.calls} calls)")
    print(f"{'':34} {'median ms':>10} {'p90 ms':>10}")
    for name, samples in stations.items():
        med, p90 = median_p90(samples)
        print(f"  station {name:<25} {med:>10.3f} {p90:>10.3f}")
    host_side = [sum(stations[s][i] for s in ("gate", "persist", "activate"))
                 for i in range(args.rounds)]
    rows = [
        ("ensure, new tool (all stations)", ensure_new),
        ("  of which gate+persist+activate", host_side),
        ("ensure, tool exists (lookup)", ensure_existing),
        ("first call (cold pool)", first_call),
        ("call via Dyntools.call (warm)", pipeline_call),
        ("call via Runtime.call (warm)", runtime_call),
        ("baseline: WorkerPool.call (warm)", pool_call),
    ]
    for label, samples in rows:
        med, p90 = median_p90(samples)
        print(f"{label:<36} {med:>10.3f} {p90:>10.3f}")
    floor = statistics.median(pool_call)
    print(f"Dyntools.call / WorkerPool.call: {statistics.median(pipeline_call) / floor:.2f}x; "
          f"Runtime.call / WorkerPool.call: {statistics.median(runtime_call) / floor:.2f}x")


if __name__ == "__main__":
    main()
