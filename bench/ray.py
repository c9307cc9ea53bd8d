"""Ray executor against the local pool: 2,000 concurrent calls of a ~1 ms tool, same run.

A real local Ray cluster is started on 127.0.0.1 (`ray.init(num_cpus=2)`); the same registry,
tool and `Dyntools.call` path serve both executors, each with one warm pool of 2 workers (the
runtime's default) on this machine: for Ray, one `SandboxHost` actor on the one node.

Measured for each executor:
- per-call latency of single calls, one at a time (p50, p99); Ray's per-call overhead is its
  latency minus the local pool's, at the same percentile;
- 2,000 calls submitted at once from `--threads` caller threads: wall-clock throughput
  (calls/s) and the per-call latency under that load (p50, p99).

Ray runs twice: with the default transport (replies polled as actor tasks, "ray") and with
`compiled_graphs=True` (replies over a Ray compiled graph, "ray+cg"). The targets are read
against the default. For scale, the round trip of a bare Ray actor task (a method that
returns at once) is measured too: what any design that sends one Ray task per call pays.

Targets (issue 13): Ray adds at most 2 ms per call at p50; one-node throughput at least half
the local pool's.

    .venv/bin/python bench/ray.py [--calls 2000] [--threads 64] [--single 300]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# This file is named ray.py: its folder must not shadow the real `ray` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]
# Ray binds to the machine's outward address unless told the cluster is local only.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

from dyntools.log import configure_logging  # noqa: E402
from dyntools.pipeline import Dyntools  # noqa: E402
from dyntools.registry import Registry  # noqa: E402

TOOL = b'''"""Waits about a millisecond, then echoes n."""
import time

NAME = "one_ms_tool"
DESCRIPTION = "Waits about a millisecond, then echoes n."
PARAMS = {"type": "object", "properties": {"n": {"type": "integer"}}}


def run(params):
    time.sleep(0.001)
    return {"n": params.get("n", 0)}
'''


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed_call(dt: Dyntools, n: int) -> float:
    started = time.perf_counter()
    result = dt.call("one_ms_tool", {"n": n})
    elapsed = time.perf_counter() - started
    assert result == {"n": n}, result
    return elapsed * 1000


def measure(dt: Dyntools, calls: int, threads: int, single: int) -> dict[str, float]:
    for i in range(50):  # warm: pools started, bytes shipped, caches filled
        timed_call(dt, i)
    one = [timed_call(dt, i) for i in range(single)]
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda i: timed_call(dt, i), range(threads * 2)))  # threads up
        started = time.perf_counter()
        loaded = list(pool.map(lambda i: timed_call(dt, i), range(calls)))
        wall = time.perf_counter() - started
    return {
        "single_p50": statistics.median(one), "single_p99": pct(one, 0.99),
        "throughput": calls / wall, "wall_s": wall,
        "load_p50": statistics.median(loaded), "load_p99": pct(loaded, 0.99),
    }


class Echo:
    def echo(self, value):
        return value


def bare_roundtrip(ray, count: int) -> list[float]:
    actor = ray.remote(Echo).options(num_cpus=0).remote()
    ray.get(actor.echo.remote(0))
    times = []
    for i in range(count):
        started = time.perf_counter()
        ray.get(actor.echo.remote({"n": i}))
        times.append((time.perf_counter() - started) * 1000)
    ray.kill(actor)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--single", type=int, default=300)
    args = parser.parse_args()
    configure_logging("error")
    import ray

    from dyntools.executors.ray_executor import RayExecutor

    started = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             logging_level=logging.ERROR, log_to_driver=False)
    print(f"Python {sys.version.split()[0]}, Ray {ray.__version__}, {os.cpu_count()} cores; "
          f"local cluster at {ray.get_runtime_context().gcs_address} "
          f"({time.perf_counter() - started:.1f} s to start)")
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        registry = Registry.open(Path(tmp) / "reg")
        registry.add_version("one_ms_tool", TOOL, {})
        with Dyntools(registry, executor="local") as dt:
            results["local"] = measure(dt, args.calls, args.threads, args.single)
        for name, compiled in (("ray", False), ("ray+cg", True)):
            executor = RayExecutor(max_queue=max(256, args.threads * 2),
                                   compiled_graphs=compiled)
            with Dyntools(registry, executor=executor) as dt:
                results[name] = measure(dt, args.calls, args.threads, args.single)
            executor.close()
    bare = bare_roundtrip(ray, args.single)
    ray.shutdown()

    print(f"\n{'':8}{'single p50':>12}{'single p99':>12}{'calls/s':>10}"
          f"{'load p50':>11}{'load p99':>11}   ({args.calls} calls, {args.threads} threads)")
    for name, r in results.items():
        print(f"{name:8}{r['single_p50']:10.2f}ms{r['single_p99']:10.2f}ms"
              f"{r['throughput']:10.0f}{r['load_p50']:9.2f}ms{r['load_p99']:9.2f}ms")
    print(f"\nbare Ray actor task round trip: p50 {statistics.median(bare):.2f} ms, "
          f"p99 {pct(bare, 0.99):.2f} ms")
    local, remote = results["local"], results["ray"]
    added50 = remote["single_p50"] - local["single_p50"]
    added99 = remote["single_p99"] - local["single_p99"]
    ratio = remote["throughput"] / local["throughput"]
    print(f"\nRay per-call overhead: p50 +{added50:.2f} ms, p99 +{added99:.2f} ms   "
          f"target <= 2 ms at p50: {'met' if added50 <= 2.0 else 'MISSED'}")
    print(f"one-node throughput: {ratio:.2f}x the local pool's   "
          f"target >= 0.5x: {'met' if ratio >= 0.5 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
