"""Issue 30: the warm and the cold call in the conditions hosts run them (bench/exec.py).

    .venv/bin/python bench/warm_conditions.py [--quick] [--machines idle,busy]
                                              [--compare CHECKOUT] [--only warm,cold,concurrent]
                                              [--waits default,block,spin] [--hosts ...]
                                              [--apis pool,dyntools]

Every cell runs in a fresh process (the checkout's dyntools first on its path), so that what
one condition leaves behind (threads, a zygote, a warm cache) is never another's: the pipe
floor and the call are measured in that process, in the same condition, in alternating
blocks (bench/conditions.py: where the scheduler places a pipe's two ends drifts). The
machine condition is made around the process: idle (nothing added) or busy (one CPU-bound
process per core, at normal priority). With --compare, the same cells run from another
checkout (e.g. main's worktree), interleaved with this one's.

Prints, per machine, API (`WorkerPool.call`, `Dyntools.call`) and host condition: the pipe
floor's median and p99, the call's median and p99, the ratios against the floor (targets: p50 within
3x for the pool and 4x for Dyntools, p99 within 10x) and, with a busy thread in the host,
the share of its throughput it kept (target: at least 90%). Then `size` threads calling one
pool against `size` processes calling a pool each (target: within 1.5x), and the cold call
from `Dyntools(...)` to the first result against the interpreter's start, measured in the
same condition (target: 25 ms or 3x).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# bench/conditions.py's HOSTS (it imports dyntools: not loaded in the parent)
HOST_NAMES = ("alone", "idle thread", "busy thread", "caller thread", "asyncio executor")
THIS = HERE.parent
sys.path.insert(0, str(HERE))

TRIVIAL = '''"""Echoes a value."""
NAME = "echo"
DESCRIPTION = "Echoes a value."
PARAMS = {"type": "object"}


def run(params):
    return {"value": params.get("value")}
'''

SLUG = '''"""Turns a title into a URL slug."""
import re
import unicodedata

NAME = "slugify_text"
DESCRIPTION = "Turns a title into a URL slug."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def run(params):
    text = unicodedata.normalize("NFKD", params["text"])
    text = text.encode("ascii", "ignore").decode("ascii")
    return {"slug": re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")}
'''

CALLS = {"echo": {"value": 1}, "slugify_text": {"text": "Hello World"}}


# Where each checkout's children keep their bytecode (these machines set
# PYTHONDONTWRITEBYTECODE=1, which would compile every module from source at every start;
# an installed package has its bytecode): a folder of this run, set by `run`.
PYCACHE: list[Path] = []


def _child_env(checkout: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DYNTOOLS_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(checkout.resolve())
    if PYCACHE:
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE[0] / str(abs(hash(str(checkout.resolve())))))
    return env


def _run_child(checkout: Path, argv: list[str], timeout: float = 600) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, *argv], env=_child_env(checkout),
                          capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {' '.join(argv)} failed:\n{done.stderr[-3000:]}")
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if not str(answer.pop("dyntools")).startswith(str(checkout.resolve())):
        raise SystemExit(f"the child ran another dyntools than {checkout}")
    return answer


# -- in the child ---------------------------------------------------------------------------

def _pool(path: Path, size: int = 1) -> Any:
    from dyntools.gate.policy import load_policy
    from dyntools.sandbox import SandboxLimits, WorkerPool

    pool = WorkerPool(path, module_name="echo_v1", policy=load_policy(),
                      limits=SandboxLimits(timeout_s=30.0), size=size,
                      max_calls_per_worker=10**9)
    pool.start()
    return pool


# The waits placement.py chooses between, forced in a child process for --waits: "default"
# (placement.py's rule: spin only while the caller is the main thread and the only one),
# "block" (never spin: the worker on every CPU, both sides block in read/poll) and "spin"
# (spin whatever threads the host has: where the blocking path's time goes shows as the
# difference, and what a spinning caller costs a busy thread as its kept share).
WAITS = ("default", "block", "spin")


def force_wait(wait: str) -> None:
    from dyntools.sandbox import placement

    if wait == "block":
        placement.Placement.spin = lambda self, *_: 0.0  # type: ignore[method-assign]
    elif wait == "spin":
        def spin_whatever_threads(self: Any, *_: Any) -> float:
            cpu = self.cpu
            if cpu is None or len(self.allowed) < 2:
                return 0.0
            current = cpu()
            if current != self.avoided:
                self.avoided = current
                self.split = self._move_off(current)
            return placement.SPIN_S if self.split else 0.0

        placement.Placement.spin = spin_whatever_threads  # type: ignore[method-assign]


def child_warm(api: str, host: str, count: int, folder: Path,
               wait: str = "default") -> dict[str, Any]:
    import conditions

    force_wait(wait)
    pipe = conditions.Pipe()
    if api == "pool":
        pool = _pool(folder / "echo.py")

        def call() -> Any:
            return pool.call({"value": 1})
        closing = pool.close
    else:
        from dyntools import Dyntools

        dt = Dyntools(folder / "registry", pool_size=1)
        dt.call("echo", {"value": 1})

        def call() -> Any:
            return dt.call("echo", {"value": 1})
        closing = dt.close
    try:
        result = conditions.measure(host, "", call, count, pipe)
    finally:
        closing()
        pipe.close()
    return {"pipe": result.pipe, "call": result.call, "share": result.share,
            "threads": result.threads}


def child_pool_rate(path: Path, seconds: float, start: float) -> float:
    pool = _pool(path)
    try:
        for _ in range(200):
            pool.call({"value": 1})
        time.sleep(max(0.0, start - time.time()))
        end = time.perf_counter() + seconds
        calls = 0
        while time.perf_counter() < end:
            pool.call({"value": 1})
            calls += 1
        return calls / seconds
    finally:
        pool.close()


def child_concurrent(path: Path, size: int, seconds: float,
                     checkout: Path) -> dict[str, Any]:
    import conditions

    def argv(start: float) -> list[str]:
        return [sys.executable, __file__, "--child", "rate", str(path), str(seconds),
                str(start)]

    threaded, processes = conditions.concurrent_throughput(
        lambda n: _pool(path, n), lambda pool: pool.call({"value": 1}), size, seconds, argv)
    return {"threads": threaded, "processes": processes}


def child_cold(folder: Path, tool: str) -> dict[str, Any]:
    from dyntools import Dyntools

    clock = time.perf_counter
    start = clock()
    dt = Dyntools(folder / "registry")
    result = dt.call(tool, CALLS[tool])
    took = clock() - start
    dt.close()
    assert result, result
    return {"cold": took}


def child_main(argv: list[str]) -> None:
    import dyntools

    kind = argv[0]
    if kind == "warm":
        answer = child_warm(argv[1], argv[2], int(argv[3]), Path(argv[4]),
                            argv[5] if len(argv) > 5 else "default")
    elif kind == "rate":
        print(child_pool_rate(Path(argv[1]), float(argv[2]), float(argv[3])))
        return
    elif kind == "concurrent":
        answer = child_concurrent(Path(argv[1]), int(argv[2]), float(argv[3]), Path(argv[4]))
    elif kind == "cold":
        answer = child_cold(Path(argv[1]), argv[2])
    else:
        raise SystemExit(f"unknown child {kind!r}")
    print(json.dumps({"dyntools": dyntools.__file__, **answer}))


# -- in the parent --------------------------------------------------------------------------

def build(folder: Path) -> None:
    """The echo tool as a file (for pools) and a registry holding it and the slug tool (for
    Dyntools), written by a child process so that this one starts no threads."""
    (folder / "echo.py").write_text(TRIVIAL)
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from dyntools.gate.policy import load_policy\n"
        "from dyntools.registry import Registry\n"
        "registry = Registry.open(Path(sys.argv[1]), load_policy())\n"
        "registry.add_version('echo', sys.argv[2].encode(), {'generator': 'bench'})\n"
        "registry.add_version('slugify_text', sys.argv[3].encode(), {'generator': 'bench'})\n"
    )
    subprocess.run([sys.executable, "-c", code, str(folder / "registry"), TRIVIAL, SLUG],
                   env=_child_env(THIS), check=True)


def load_text() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def _machine(name: str) -> Any:
    import contextlib

    import conditions

    if name == "busy":
        return conditions.busy_machine(os.cpu_count() or 2)
    return contextlib.nullcontext()


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:8.1f}"


def _verdict(met: bool) -> str:
    return "met   " if met else "MISSED"


def warm(folder: Path, checkouts: list[Path], machines: list[str], count: int,
         waits: list[str], hosts: list[str], apis: list[str]) -> None:
    import conditions

    print(f"warm calls in the hosts' conditions, against the pipe floor of the same process "
          f"and condition (µs); {load_text()}")
    targets = {"pool": 3.0, "dyntools": 4.0}
    header = (f"  {'machine':7} {'api':9} {'host':17} {'checkout':9} {'wait':8} {'floor':>8} "
              f"{'fl p99':>8} {'p50':>8} {'p99':>8} {'p50/fl':>7} {'p99/fl':>7} "
              f"{'busy thread kept':>17}  p50    p99")
    print(header)
    for machine in machines:
        with _machine(machine):
            for api in apis:
                for host in hosts:
                    for checkout, wait in [(c, w) for c in checkouts for w in waits]:
                        got = _run_child(checkout, ["--child", "warm", api, host, str(count),
                                                    str(folder), wait])
                        floor = statistics.median(got["pipe"])
                        floor_p99 = conditions.percentile(got["pipe"], 0.99)
                        p50 = statistics.median(got["call"])
                        p99 = conditions.percentile(got["call"], 0.99)
                        share = got["share"]
                        kept = "" if share is None else f"{share:6.0%} " + (
                            "met" if share >= 0.9 else "MISSED")
                        label = "this" if checkout == THIS else "compare"
                        print(f"  {machine:7} {api:9} {host:17} {label:9} {wait:8} {_us(floor)} "
                              f"{_us(floor_p99)} {_us(p50)} {_us(p99)} {p50 / floor:6.2f}x "
                              f"{p99 / floor:6.1f}x {kept:>17}  "
                              f"{_verdict(p50 / floor <= targets[api])} "
                              f"{_verdict(p99 / floor <= 10)}")
        print(f"  ({machine} machine done; {load_text()})")


def concurrent(folder: Path, checkouts: list[Path], machines: list[str], size: int,
               seconds: float) -> None:
    print(f"{size} threads calling one pool of {size} against {size} processes calling a pool "
          f"each (calls per second; target: the processes within 1.5x); {load_text()}")
    for machine in machines:
        with _machine(machine):
            for checkout in checkouts:
                got = _run_child(checkout, ["--child", "concurrent", str(folder / "echo.py"),
                                            str(size), str(seconds), str(checkout)])
                ratio = got["processes"] / got["threads"]
                label = "this" if checkout == THIS else "compare"
                print(f"  {machine:7} {label:8} threads {got['threads']:9.0f}/s  processes "
                      f"{got['processes']:9.0f}/s  {ratio:5.2f}x  "
                      f"{'met' if ratio <= 1.5 else 'MISSED'}")


def cold(folder: Path, checkouts: list[Path], machines: list[str], rounds: int) -> None:
    print(f"cold call, from Dyntools(...) to the first result, in a fresh process, against "
          f"the interpreter's start (python -I -S -c pass) in the same condition; "
          f"{load_text()}")
    for machine in machines:
        with _machine(machine):
            interpreter: list[float] = []
            runs: dict[tuple[str, Path], list[float]] = {}
            for tool in ("echo", "slugify_text"):  # fill the bytecode caches
                for checkout in checkouts:
                    _run_child(checkout, ["--child", "cold", str(folder), tool])
            for _ in range(rounds):
                began = time.perf_counter()
                subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True)
                interpreter.append(time.perf_counter() - began)
                for tool in ("echo", "slugify_text"):
                    for checkout in checkouts:
                        got = _run_child(checkout, ["--child", "cold", str(folder), tool])
                        runs.setdefault((tool, checkout), []).append(got["cold"])
            start = statistics.median(interpreter)
            print(f"  {machine} machine: interpreter start {start * 1e3:.1f} ms (median of "
                  f"{rounds}); target {max(25e-3, 3 * start) * 1e3:.1f} ms")
            for (tool, checkout), samples in runs.items():
                median = statistics.median(samples)
                label = "this" if checkout == THIS else "compare"
                met = median <= max(25e-3, 3 * start)
                print(f"    {tool:13} {label:8} median {median * 1e3:6.1f} ms  best "
                      f"{min(samples) * 1e3:6.1f} ms  {median / start:4.1f}x the interpreter "
                      f"start  {'met' if met else 'MISSED'}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--machines", default="idle,busy")
    parser.add_argument("--only", default="warm,concurrent,cold")
    parser.add_argument("--compare", type=Path, default=None)
    parser.add_argument("--apis", default="pool,dyntools")
    parser.add_argument("--waits", default="default",
                        help=f"comma-separated, of {', '.join(WAITS)} (force_wait)")
    parser.add_argument("--hosts", default=",".join(HOST_NAMES),
                        help="comma-separated host conditions (bench/conditions.py HOSTS)")
    args = parser.parse_args()
    waits = args.waits.split(",")
    hosts = args.hosts.split(",")
    if set(waits) - set(WAITS) or set(hosts) - set(HOST_NAMES):
        parser.error(f"--waits of {WAITS}, --hosts of {HOST_NAMES}")
    apis = args.apis.split(",")
    if set(apis) - {"pool", "dyntools"}:
        parser.error("--apis of pool, dyntools")
    run(args.quick, args.machines.split(","), args.only.split(","), args.compare, waits, hosts,
        apis)


def run(quick: bool, machines: list[str], parts: list[str], compare: Path | None,
        waits: list[str], hosts: list[str], apis: list[str]) -> None:
    checkouts = [THIS] + ([compare] if compare is not None else [])
    with tempfile.TemporaryDirectory(prefix="dyntools-conditions-") as name:
        folder = Path(name)
        PYCACHE[:] = [folder / "pycache"]
        build(folder)
        if "warm" in parts:
            warm(folder, checkouts, machines, 2000 if quick else 8000, waits, hosts, apis)
            print()
        if "concurrent" in parts:
            concurrent(folder, checkouts, machines, 2, 1.0 if quick else 3.0)
            print()
        if "cold" in parts:
            cold(folder, checkouts, machines, 5 if quick else 15)
            print()


if __name__ == "__main__":
    main()
