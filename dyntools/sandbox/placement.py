"""Where a warm worker runs relative to its caller, and whether the two wait by spinning.

A warm call is a few microseconds of work on each side of a pipe. How long it takes is decided
by the wake-ups between them (measured by bench/exec.py on the 2-core VM this project runs
on, where a sleeping virtual CPU is halted and takes tens of microseconds to wake):

- host and worker on one CPU: no CPU sleeps, but each process evicts the other's data from
  the caches at every switch, and the work on both sides takes about three times as long as
  it does warm;
- on two CPUs, each blocking in read/poll: every message wakes a halted CPU (the round trip
  doubles; this is where an idle machine puts them, because the scheduler prefers an idle
  CPU for a waking task);
- on two CPUs, each polling for a short, bounded while before it blocks: no CPU sleeps
  during a burst of calls and each side keeps its caches; the fastest of the three.

So, from a worker's second call on, the host keeps the worker off the caller's current CPU
(`sched_setaffinity` on the worker, never on the caller; the caller may be any thread, so the
CPU is read at each call) and both sides poll for at most `SPIN_S` before blocking: the host
for the reply, the worker for the next call. Where there is no second CPU to use (one allowed
CPU, no `sched_getcpu`, an affinity the kernel refuses), nothing spins and the worker is left
where the kernel puts it. Polling on the caller's own CPU is never done: a poller there would
keep the other side from running.

Other threads of the host. A thread that polls in Python takes the GIL back at every round, so
a host thread that computes (and waits for the GIL) would get it only when its switch interval
(5 ms) runs out: a spinning caller starves it. An idle thread (an Event wait, an event loop in
epoll, an executor's idle worker) wants no GIL, and a caller on another thread than the main
one is no different from the main one. So the host does not ask whether other threads exist
but whether they computed: while another Python thread is alive, a spinning call reads the
process's CPU time less its own thread's before and after (`others_cpu`), and when the others
computed for more than `CONTENDED_S` and a quarter of the call's time (they took the GIL during
it), every call of the process blocks for a pause (`GilWatch.judge`): `PAUSE_MIN_S`, doubled
each time they are found computing again soon after a pause, up to `PAUSE_MAX_S`. While they
compute, a caller that spins again takes the GIL from them once per pause at most: a few ms
per second at first, a few per `PAUSE_MAX_S` later. A busy machine (another process taking the
CPU) is not contention: only this process's threads count. With no other Python thread, none of
this is read (two clock reads a call are spared).

Concurrent callers: a spinning pair of caller and worker needs two CPUs, so a call spins only
while no more calls of the process are in flight than there are CPU pairs (`GilWatch.enter`);
the others block, their workers on every CPU.

Only scheduling changes here: the worker's layers, and what crosses the pipe, are the same.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable

# How long each side polls before it blocks. A warm call's gaps are a few microseconds; this
# covers them many times over, and bounds what a spin costs: the host burns at most this
# much CPU per call that takes longer, the worker at most this much after its last call.
SPIN_S = 0.0002
# The host's other threads computed during a spinning call for longer than this (and than a
# quarter of the call): they took the GIL from the caller. A GIL hand-off to a computing
# thread takes its switch interval (5 ms); an idle thread's wake-up takes microseconds.
CONTENDED_S = 0.00005
PAUSE_MIN_S = 0.01  # how long every call blocks after contention was first seen
PAUSE_MAX_S = 1.0  # the longest pause (contention seen again and again)
# Contention seen again within this many pauses of the last one's end doubles the next.
AGAIN_PAUSES = 4.0
_monotonic = time.monotonic
_process_time = time.process_time
_thread_time = time.thread_time


def others_cpu() -> float:
    """CPU seconds the process's other threads have used (the process's less this thread's);
    differences of it are what they computed meanwhile."""
    return _process_time() - _thread_time()


class GilWatch:
    """Process-wide: how many calls wait for a reply now, and whether spinning is paused
    because the host's other threads want the GIL (see the module's text)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = 0
        self.paused_until = 0.0
        self.pause = PAUSE_MIN_S
        self.pauses = 0  # how many were started (tests and bench/ read it)

    def enter(self) -> int:
        """Count one more call in flight; how many there are now."""
        with self.lock:
            self.in_flight += 1
            return self.in_flight

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def paused(self) -> bool:
        return _monotonic() < self.paused_until

    def judge(self, others: float, wall: float) -> None:
        """A spinning call of `wall` seconds, during which the other threads computed for
        `others` seconds: pause spinning if they took the GIL."""
        if others <= CONTENDED_S or others <= wall / 4:
            return
        with self.lock:
            now = _monotonic()
            if now < self.paused_until:
                return
            ended = self.paused_until
            again = ended and now - ended < AGAIN_PAUSES * self.pause
            self.pause = min(self.pause * 2, PAUSE_MAX_S) if again else PAUSE_MIN_S
            self.paused_until = now + self.pause
            self.pauses += 1


gil_watch = GilWatch()


def current_cpu_reader() -> Callable[[], int] | None:
    """`sched_getcpu()` of the calling thread (a vDSO read, ~0.1 µs through ctypes), or None
    where the C library has none."""
    try:
        import ctypes

        function = ctypes.CDLL(None, use_errno=True).sched_getcpu
    except (ImportError, OSError, AttributeError):
        return None
    function.restype = ctypes.c_int
    function.argtypes = []
    reader: Callable[[], int] = function
    return reader


class Placement:
    """Keeps one worker process off its caller's CPU; `spin()` says how long both sides may
    poll for the call about to be made (0.0: block at once)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.cpu: Callable[[], int] | None = current_cpu_reader()
        try:
            self.allowed = frozenset(os.sched_getaffinity(pid))
        except (OSError, AttributeError):  # no such call here, or the worker is gone
            self.allowed = frozenset()
        self.avoided = -1  # the caller's CPU the worker was last moved off
        self.split = False

    def spin(self, in_flight: int = 1) -> float:
        """How long both sides may poll for the call about to be made, with `in_flight` calls
        of the process waiting for a reply (this one included)."""
        cpu = self.cpu
        if cpu is None or len(self.allowed) < 2:
            return 0.0
        if in_flight > len(self.allowed) // 2 or gil_watch.paused():
            self.release()
            return 0.0
        current = cpu()
        if current != self.avoided:
            self.avoided = current
            self.split = self._move_off(current)
        return SPIN_S if self.split else 0.0

    def release(self) -> None:
        """Give the worker all its CPUs back (the kernel places it from now on)."""
        if self.split:
            self.split = False
            self.avoided = -1
            with contextlib.suppress(OSError):  # the worker ended
                os.sched_setaffinity(self.pid, self.allowed)

    def _move_off(self, current: int) -> bool:
        others = self.allowed - {current}
        if current < 0 or not others:
            return False
        try:
            os.sched_setaffinity(self.pid, others)
        except OSError:  # the worker ended, or a cpuset refuses these CPUs
            return False
        return True
