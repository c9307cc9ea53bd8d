"""Ray executor against the local pool: 2,000 concurrent calls of a ~1 ms tool, same run.

A real local Ray cluster is started on 127.0.0.1 (`ray.init(num_cpus=2)`); the same registry,
tool and `Dyntools.call` path serve both executors, each with one warm pool of 2 workers (the
runtime's default) on this machine: for Ray, one `SandboxHost` actor on the one node.

The machine is shared, and its load moves by the second, so what is compared is measured
side by side, interleaved call by call (the order rotating), never one phase after another:

- single calls, one at a time: the local pool, Ray, and two bare Ray actor tasks on an actor
  configured like `SandboxHost` (threaded, the same `max_concurrency`) with a request of the
  same shape, on the same wire (one marshal blob each way): one that returns at once, and
  one that sleeps the tool's 1 ms in the actor.
  Ray's per-call overhead is its p50 minus the local pool's; the bare tasks show the floor,
  what any design that sends one Ray task per call pays. Measured twice: back to back, in
  alternating blocks of `--block` calls (a lone agent calling one tool after another), and
  call by call (each target idle for a few ms before its call: Ray's threads have gone to
  sleep, and waking them costs more on a busy machine);
- a capability call (one `host.http_get` to a server on 127.0.0.1, brokered by the driver),
  local against Ray: what a request frame's continuation costs (see docs/scale.md);
- 2,000 calls submitted at once from `--threads` caller threads, in alternating rounds
  (local, Ray, local, Ray, ...): throughput (calls/s) and the per-call latency under load.

`--compiled-graphs` adds a Ray executor that polls over a Ray compiled graph: not measured by
default, because its channel spins while idle (about 0.8 of a core here) and slows everyone
else on a shared machine.

Targets (issue 13): Ray adds at most 2 ms per call at p50; one-node throughput at least half
the local pool's.

    .venv/bin/python bench/ray.py [--calls 2000] [--threads 64] [--single 300] [--rounds 2]
"""

from __future__ import annotations

import argparse
import http.server
import logging
import marshal
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ray_common import TOOL, remote_echo  # first: it takes this folder off sys.path

from dyntools.base.log import configure_logging
from dyntools.capabilities import policy_from_mapping
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry

FETCH = '''"""Fetches one page through the host."""
import host

NAME = "fetch_once"
DESCRIPTION = "Fetches one page through the host."
PARAMS = {{"type": "object", "properties": {{"n": {{"type": "integer"}}}}}}
CAPABILITIES = {{"http": ["127.0.0.1:{port}"]}}


def run(params):
    page = host.http_get("http://127.0.0.1:{port}/page")
    return {{"n": params.get("n", 0), "status": page["status"]}}
'''


class _Page(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else the body waits for a delayed ACK (40 ms)

    def do_GET(self) -> None:
        body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} (5 min {five:.2f})"


def timed(call: Callable[[int], Any], n: int) -> float:
    started = time.perf_counter()
    call(n)
    return (time.perf_counter() - started) * 1000


def tool_call(dt: Dyntools, name: str) -> Callable[[int], Any]:
    def call(n: int) -> Any:
        result = dt.call(name, {"n": n})
        assert result["n"] == n, result
        return result

    return call


def interleaved(calls: dict[str, Callable[[int], Any]], count: int,
                block: int = 1) -> dict[str, list[float]]:
    """Each of `calls` `count` times, in alternating blocks of `block` calls (1: call by
    call), the order rotating from block to block."""
    names = list(calls)
    times: dict[str, list[float]] = {name: [] for name in names}
    for turn, start in enumerate(range(0, count, block)):
        for offset in range(len(names)):
            name = names[(turn + offset) % len(names)]
            times[name].extend(timed(calls[name], i)
                               for i in range(start, min(count, start + block)))
    return times


def under_load(call: Callable[[int], Any], pool: ThreadPoolExecutor,
               calls: int) -> dict[str, float]:
    started = time.perf_counter()
    latencies = list(pool.map(lambda i: timed(call, i), range(calls)))
    wall = time.perf_counter() - started
    return {"throughput": calls / wall, "p50": statistics.median(latencies),
            "p99": pct(latencies, 0.99)}



def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--single", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--block", type=int, default=25)
    parser.add_argument("--compiled-graphs", action="store_true")
    args = parser.parse_args()
    configure_logging("error")
    import ray

    from dyntools.executors.ray_executor import RayExecutor

    started = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             logging_level=logging.ERROR, log_to_driver=False)
    print(f"Python {sys.version.split()[0]}, Ray {ray.__version__}, {os.cpu_count()} cores; "
          f"local cluster at {ray.get_runtime_context().gcs_address} "
          f"({time.perf_counter() - started:.1f} s to start); {load()}")
    max_queue = max(256, args.threads * 2)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    policy = policy_from_mapping({"http": {"allow": [f"127.0.0.1:{port}"],
                                           "allow_private": ["127.0.0.1/32"]}})
    bare = remote_echo(ray).options(num_cpus=0, max_concurrency=max_queue + 8).remote()
    request = (0, ("one_ms_tool", 1, "0" * 64), {"n": 0}, None, None, False)

    def bare_call(sleep_s: float) -> Callable[[int], Any]:
        method = bare.exchange_1ms if sleep_s else bare.exchange

        def call(n: int) -> Any:
            return marshal.loads(ray.get(method.remote(marshal.dumps([(n, *request[1:])]))))

        return call

    executors = {"ray": RayExecutor(max_queue=max_queue)}
    if args.compiled_graphs:
        executors["ray+cg"] = RayExecutor(max_queue=max_queue, compiled_graphs=True)
    with tempfile.TemporaryDirectory() as tmp:
        registry = Registry.open(Path(tmp) / "reg")
        registry.add_version("one_ms_tool", TOOL, {})
        registry.add_version("fetch_once", FETCH.format(port=port).encode(), {})
        opened = {"local": Dyntools(registry, executor="local", capabilities=policy)}
        opened.update({name: Dyntools(registry, executor=executor, capabilities=policy)
                       for name, executor in executors.items()})
        try:
            for dt in opened.values():  # warm: pools started, bytes shipped, caches filled
                for i in range(50):
                    tool_call(dt, "one_ms_tool")(i)
                    tool_call(dt, "fetch_once")(i)
            bare_call(0)(0)
            targets = {
                **{name: tool_call(dt, "one_ms_tool") for name, dt in opened.items()},
                "bare task": bare_call(0.0), "bare task, 1 ms": bare_call(0.001),
            }
            single = interleaved(targets, args.single, args.block)
            print(f"single calls back to back done; {load()}")
            cold = interleaved(targets, args.single)
            print(f"single calls call by call done; {load()}")
            brokered = interleaved({name: tool_call(dt, "fetch_once")
                                    for name, dt in opened.items()}, max(50, args.single // 3))
            print(f"capability calls done; {load()}")
            loaded: dict[str, list[dict[str, float]]] = {name: [] for name in opened}
            with ThreadPoolExecutor(args.threads) as pool:
                for dt in opened.values():  # threads up
                    list(pool.map(tool_call(dt, "one_ms_tool"), range(args.threads * 2)))
                for _ in range(args.rounds):
                    for name, dt in opened.items():
                        loaded[name].append(under_load(tool_call(dt, "one_ms_tool"), pool,
                                                       args.calls))
            print(f"load rounds done; {load()}")
        finally:
            for dt in opened.values():
                dt.close()
            for executor in executors.values():
                executor.close()
    ray.kill(bare)
    server.shutdown()
    ray.shutdown()

    for title, measured in ((f"back to back, blocks of {args.block}", single),
                            ("call by call", cold)):
        print(f"\nsingle calls of a 1 ms tool, {title} ({args.single} each):")
        for name, times in measured.items():
            print(f"  {name:18}p50 {statistics.median(times):6.2f} ms   "
                  f"p99 {pct(times, 0.99):6.2f} ms")
    print("\none capability call (one host.http_get to 127.0.0.1, brokered on the driver):")
    for name, times in brokered.items():
        print(f"  {name:18}p50 {statistics.median(times):6.2f} ms   p99 {pct(times, 0.99):6.2f} ms")
    print(f"\n{args.calls} calls at once from {args.threads} threads, by round:")
    for name, rounds in loaded.items():
        cells = "  ".join(f"{r['throughput']:5.0f}/s p50 {r['p50']:6.1f} p99 {r['p99']:6.1f} ms"
                          for r in rounds)
        print(f"  {name:8}{cells}")

    local50 = statistics.median(single["local"])
    added50 = statistics.median(single["ray"]) - local50
    added99 = pct(single["ray"], 0.99) - pct(single["local"], 0.99)
    bare50 = statistics.median(single["bare task"])
    cold50 = statistics.median(cold["ray"]) - statistics.median(cold["local"])
    cap50 = statistics.median(brokered["ray"]) - statistics.median(brokered["local"])
    ratios = [r["throughput"] / loc["throughput"]
              for r, loc in zip(loaded["ray"], loaded["local"], strict=True)]
    ratio = statistics.median(ratios)
    print(f"\nRay per-call overhead: p50 +{added50:.2f} ms, p99 +{added99:.2f} ms (a bare Ray "
          f"task: {bare50:.2f} ms)   target <= 2 ms at p50: "
          f"{'met' if added50 <= 2.0 else 'MISSED'}")
    print(f"  call by call: p50 +{cold50:.2f} ms (a bare Ray task: "
          f"{statistics.median(cold['bare task']):.2f} ms)")
    print(f"Ray per capability call (one request): p50 +{cap50:.2f} ms over the local pool")
    print(f"one-node throughput: {ratio:.2f}x the local pool's (rounds: "
          f"{', '.join(f'{r:.2f}x' for r in ratios)})   target >= 0.5x: "
          f"{'met' if ratio >= 0.5 else 'MISSED'}")
    print(load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
