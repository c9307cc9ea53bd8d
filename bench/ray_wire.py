"""The lone Ray call's wire, before and after, in one run: one executor, alternating.

"list wire" sends the lone call's `exchange` task what the lane sent before the change: the
requests as a list of tuples and the wait as a second argument, answered with a list, which
Ray serializes through its general object path. "blob wire" is the lane as it is: one marshal
blob each way (`dyntools.executors.node_actor.pack`), one argument. The node answers both (it keeps
the list path for calls that ship a version's source), so both run on the same actor, pool and
workers, and only the wire differs. The local pool and two bare Ray tasks (blob wire: at once,
and with the tool's 1 ms) run in the same rotation, with bench/ray.py's 1 ms tool.

    .venv/bin/python bench/ray_wire.py [--single 600] [--block 25]   (--block 1: call by call)
"""

from __future__ import annotations

import argparse
import logging
import marshal
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ray_common import TOOL, remote_echo  # first: it takes this folder off sys.path

from dyntools.base.log import configure_logging
from dyntools.executors.node_actor import POLL_WAIT_S, unpack
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry


class ListWire:
    """An actor handle whose `exchange` goes out as before the change: a list and a wait."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def __getattr__(self, name: str) -> Any:
        if name != "exchange":
            return getattr(self._handle, name)
        real = self._handle.exchange

        class Method:
            def remote(self, requests: Any, *rest: Any) -> Any:
                return real.remote(unpack(requests), POLL_WAIT_S)

        return Method()



def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--single", type=int, default=600)
    parser.add_argument("--block", type=int, default=25)
    args = parser.parse_args()
    configure_logging("error")
    import ray

    from dyntools.executors.ray_executor import RayExecutor

    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             logging_level=logging.ERROR, log_to_driver=False)
    print(f"Ray {ray.__version__}, {os.cpu_count()} cores; {load()}")
    executor = RayExecutor()
    bare = remote_echo(ray).options(num_cpus=0, max_concurrency=264).remote()
    request = (0, ("one_ms_tool", 1, "0" * 64), {"n": 0}, None, None, False)
    with tempfile.TemporaryDirectory() as tmp:
        registry = Registry.open(Path(tmp) / "reg")
        registry.add_version("one_ms_tool", TOOL, {})
        remote = Dyntools(registry, executor=executor)
        local = Dyntools(registry, executor="local")
        try:
            for i in range(50):
                remote.call("one_ms_tool", {"n": i})
                local.call("one_ms_tool", {"n": i})
            lane = executor._actors[0].lane
            blob_handle = lane._handle
            list_handle = ListWire(blob_handle)

            def on(handle: Any) -> Callable[[int], Any]:
                def call(n: int) -> Any:
                    lane._handle = handle
                    return remote.call("one_ms_tool", {"n": n})

                return call

            def bare_call(method: Any) -> Callable[[int], Any]:
                return lambda n: ray.get(method.remote(marshal.dumps([(n, *request[1:])])))

            targets: dict[str, Callable[[int], Any]] = {
                "local": lambda n: local.call("one_ms_tool", {"n": n}),
                "ray, list wire": on(list_handle), "ray, blob wire": on(blob_handle),
                "bare task": bare_call(bare.exchange),
                "bare task, 1 ms": bare_call(bare.exchange_1ms),
            }
            for i in range(30):
                for target in targets.values():
                    target(i)
            names = list(targets)
            times: dict[str, list[float]] = {name: [] for name in names}
            for turn, start in enumerate(range(0, args.single, args.block)):
                for offset in range(len(names)):
                    name = names[(turn + offset) % len(names)]
                    for i in range(start, min(args.single, start + args.block)):
                        began = time.perf_counter()
                        targets[name](i)
                        times[name].append((time.perf_counter() - began) * 1000)
            lane._handle = blob_handle
        finally:
            remote.close()
            local.close()
            executor.close()
    ray.kill(bare)
    ray.shutdown()
    how = "call by call" if args.block == 1 else f"back to back, blocks of {args.block}"
    print(f"single calls of a 1 ms tool, {how} ({args.single} each); {load()}")
    p50 = {name: statistics.median(values) for name, values in times.items()}
    p99 = {name: sorted(values)[min(len(values) - 1, int(0.99 * len(values)))]
           for name, values in times.items()}
    for name in names:
        print(f"  {name:18}p50 {p50[name]:6.2f} ms   p99 {p99[name]:6.2f} ms")
    for name in ("ray, list wire", "ray, blob wire"):
        print(f"  {name}: Ray adds p50 +{p50[name] - p50['local']:.2f} ms, "
              f"p99 +{p99[name] - p99['local']:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
