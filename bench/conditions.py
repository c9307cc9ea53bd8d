"""The conditions a warm call meets in real hosts (issue 30), for bench/exec.py.

A host process is rarely alone: an MCP server over HTTP has its event loop and the executor
threads it calls from, agent frameworks have theirs, `Dyntools` itself may have the
registry's. And the machine is idle or busy. Each condition here is a context in which a
function is called back to back and timed, and the same is done, in the same condition and
in alternating blocks with it, for a bare pipe round trip to a child that echoes (the floor of
any call across a process boundary):

    host:     alone (no other thread), an idle thread (blocked on an Event), a busy thread
              (a CPU-bound Python loop, whose throughput is measured against the same loop
              with no calls being made), a caller that is not the main thread, an asyncio
              loop calling through its executor threads (as serve-mcp over HTTP does);
    machine:  idle (nothing added), busy (one CPU-bound process per core, normal priority).

`concurrent_throughput` measures N threads calling one pool against N processes each calling
a pool of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from dyntools.sandbox.worker.protocol import frame

ECHO_CHILD = textwrap.dedent('''
    import os
    while True:
        header = os.read(0, 4)
        if len(header) < 4:
            break
        size = int.from_bytes(header, "big")
        data = os.read(0, size) if size else b""
        os.write(1, header + data)
    ''')

HOSTS = ("alone", "idle thread", "busy thread", "caller thread", "asyncio executor")
MACHINES = ("idle", "busy")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Pipe:
    """Bare pipe round trips to echo children: the floor of a call across the boundary.

    On an idle machine a round trip costs several times more when the scheduler has put the
    child on another core (waking an idle core) than on this one, and where it puts it is
    settled per process: one child would make the floor a coin toss. So `CHILDREN` children
    are timed, and the floor is the one that answered fastest (`best`): what a bare pipe
    achieves in this process and condition."""

    CHILDREN = 3

    def __init__(self) -> None:
        self.children = [subprocess.Popen([sys.executable, "-I", "-S", "-c", ECHO_CHILD],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                         for _ in range(self.CHILDREN)]
        self.ends = [(child.stdin.fileno(), child.stdout.fileno())  # type: ignore[union-attr]
                     for child in self.children]
        self.message = frame(b'{"value": 1}')
        self.wfd, self.rfd = self.ends[0]
        self.samples: list[list[float]] = [[] for _ in self.children]

    def use(self, index: int) -> None:
        self.wfd, self.rfd = self.ends[index]

    def call(self) -> None:
        os.write(self.wfd, self.message)
        os.read(self.rfd, 65536)

    def best(self) -> list[float]:
        """The samples of the child with the lowest median."""
        return min(self.samples, key=statistics.median)

    def close(self) -> None:
        for child in self.children:
            assert child.stdin is not None
            child.stdin.close()
            child.wait()


@contextlib.contextmanager
def busy_machine(processes: int) -> Iterator[None]:
    """`processes` CPU-bound processes at normal priority (the busy machine: one per core)."""
    started = [subprocess.Popen([sys.executable, "-I", "-S", "-c", "while True: pass"])
               for _ in range(processes)]
    try:
        time.sleep(0.3)  # let the scheduler spread them
        yield
    finally:
        for process in started:
            process.kill()
            process.wait()


class BusyThread:
    """A CPU-bound Python thread in the host: a counting loop, whose count says how much of
    the interpreter it got."""

    def __init__(self) -> None:
        self.count = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="bench-busy", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        n = 0
        while not self._stop:
            n += 1
            if not n & 255:
                self.count = n

    def rate(self, seconds: float) -> float:
        """Its count per second over `seconds` with nothing else happening here."""
        start, began = self.count, time.perf_counter()
        time.sleep(seconds)
        return (self.count - start) / (time.perf_counter() - began)

    def stop(self) -> None:
        self._stop = True
        self._thread.join()


def timed(fn: Callable[[], Any], count: int, warmup: int = 200) -> list[float]:
    clock = time.perf_counter
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(count):
        start = clock()
        fn()
        samples.append(clock() - start)
    return samples


def timed_for(fn: Callable[[], Any], seconds: float) -> list[float]:
    clock = time.perf_counter
    samples: list[float] = []
    end = clock() + seconds
    while True:
        start = clock()
        if start >= end:
            return samples
        fn()
        samples.append(clock() - start)


def timed_in_executor(fn: Callable[[], Any], count: int, warmup: int = 200) -> list[float]:
    """Each call awaited from an asyncio loop through its default executor, one at a time, as
    an MCP server over HTTP calls a tool (anyio.to_thread.run_sync), timed from the loop."""

    async def run() -> list[float]:
        loop = asyncio.get_running_loop()
        clock = time.perf_counter
        for _ in range(warmup):
            await loop.run_in_executor(None, fn)
        samples = []
        for _ in range(count):
            start = clock()
            await loop.run_in_executor(None, fn)
            samples.append(clock() - start)
        return samples

    return asyncio.run(run())


class Result:
    """One condition's samples: the floor's and the call's, and the busy thread's share."""

    def __init__(self, host: str, machine: str, pipe: list[float], call: list[float],
                 share: float | None = None, threads: int = 1) -> None:
        self.host, self.machine = host, machine
        self.pipe, self.call, self.share, self.threads = pipe, call, share, threads

    @property
    def floor(self) -> float:
        return statistics.median(self.pipe)

    @property
    def p50(self) -> float:
        return statistics.median(self.call)

    @property
    def p99(self) -> float:
        return percentile(self.call, 0.99)


BLOCKS = 10  # the floor and the call alternate in this many blocks each


def interleaved(pipe: Pipe, call: Callable[[], Any], count: int,
                timer: Callable[[Callable[[], Any], int, int], list[float]] = timed,
                during_call: Callable[[float, float], None] | None = None,
                ) -> tuple[list[float], list[float]]:
    """`count` samples of `call` and of each of the pipe's children, in alternating blocks
    (where the scheduler puts the worker and this thread drifts over a run: two long
    back-to-back runs could each catch another placement); the floor's samples are the
    fastest child's (`Pipe.best`). `during_call(began, ended)` is told each call block's
    span (the busy thread's share)."""
    per_block = max(1, count // BLOCKS)
    call_samples: list[float] = []
    for block in range(BLOCKS):
        warmup = 200 if block == 0 else 20
        for index, kept in enumerate(pipe.samples):
            pipe.use(index)
            kept.extend(timer(pipe.call, per_block, warmup))
        began = time.perf_counter()
        call_samples += timer(call, per_block, warmup)
        if during_call is not None:
            during_call(began, time.perf_counter())
    return pipe.best(), call_samples


def measure(host: str, machine: str, call: Callable[[], Any], count: int,
            pipe: Pipe) -> Result:
    """The pipe floor and `call`, in alternating blocks, `count` times each, in the host
    condition `host` (the machine condition is the caller's)."""
    if host == "alone":
        return Result(host, machine, *interleaved(pipe, call, count),
                      threads=threading.active_count())
    if host == "idle thread":
        release = threading.Event()
        other = threading.Thread(target=release.wait, name="bench-idle", daemon=True)
        other.start()
        try:
            return Result(host, machine, *interleaved(pipe, call, count),
                          threads=threading.active_count())
        finally:
            release.set()
            other.join()
    if host == "caller thread":
        out: dict[str, tuple[list[float], list[float]]] = {}

        def run() -> None:
            out["samples"] = interleaved(pipe, call, count)

        caller = threading.Thread(target=run, name="bench-caller")
        caller.start()
        caller.join()
        return Result(host, machine, *out["samples"], threads=2)
    if host == "asyncio executor":
        return Result(host, machine,
                      *interleaved(pipe, call, count, timer=timed_in_executor),
                      threads=threading.active_count())
    if host == "busy thread":
        busy = BusyThread()
        spans: list[tuple[int, float]] = []  # (busy count, seconds) of each call block

        def during_call(began: float, ended: float) -> None:
            spans.append((busy.count, ended - began))

        try:
            alone = busy.rate(0.5)
            marks: list[int] = []

            def call_marked() -> Any:
                return call()

            def timer(fn: Callable[[], Any], n: int, warmup: int) -> list[float]:
                if fn is call_marked:
                    marks.append(busy.count)
                return timed(fn, n, warmup)

            floor, samples = interleaved(pipe, call_marked, count // 4, timer=timer,
                                         during_call=during_call)
            counted = sum(end - start for start, (end, _) in zip(marks, spans, strict=True))
            during = counted / sum(seconds for _, seconds in spans)
            alone = (alone + busy.rate(0.5)) / 2  # before and after the calls
        finally:
            busy.stop()
        return Result(host, machine, floor, samples, share=during / alone, threads=2)
    raise ValueError(f"unknown host condition {host!r}")


def concurrent_throughput(make_pool: Callable[[int], Any], call: Callable[[Any], Any],
                          size: int, seconds: float,
                          child_argv: Callable[[float], list[str]]) -> tuple[float, float]:
    """Calls per second of `size` threads calling one pool of `size` workers, and of `size`
    processes each calling a pool of one (`child_argv(start)` runs one such process: it
    starts its pool, waits for the wall-clock time `start`, calls for `seconds` and prints
    its calls per second)."""
    pool = make_pool(size)
    try:
        counts = [0] * size
        barrier = threading.Barrier(size + 1)

        def caller(index: int) -> None:
            barrier.wait()
            end = time.perf_counter() + seconds
            n = 0
            while time.perf_counter() < end:
                call(pool)
                n += 1
            counts[index] = n

        threads = [threading.Thread(target=caller, args=(i,)) for i in range(size)]
        for thread in threads:
            thread.start()
        for _ in range(200):
            call(pool)
        barrier.wait()
        for thread in threads:
            thread.join()
        threaded = sum(counts) / seconds
    finally:
        pool.close()
    start = time.time() + 3.0  # each child has its pool started by then
    children = [subprocess.Popen(child_argv(start), stdout=subprocess.PIPE, text=True)
                for _ in range(size)]
    rates = []
    for child in children:
        out, _ = child.communicate()
        rates.append(float(out.strip().splitlines()[-1]))
    return threaded, sum(rates)
