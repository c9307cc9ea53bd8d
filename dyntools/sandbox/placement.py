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
(`sched_setaffinity` on the worker, never on the caller) and both sides poll for at most
`SPIN_S` before blocking: the host for the reply, the worker for the next call. Where there
is no second CPU to use (one allowed CPU, no `sched_getcpu`, an affinity the kernel
refuses), nothing spins and the worker is left where the kernel puts it. Polling on the
caller's own CPU is never done: a poller there would keep the other side from running.

Nor does the host poll unless the call comes from the main thread and no other Python thread
of its process is alive: a thread that polls in Python holds the GIL as one that computes
does, and another thread waiting for it would wait up to the switch interval (5 ms) each
time. Then the worker goes back to every CPU it was allowed and both sides block, as without
this module.

Only scheduling changes here: the worker's layers, and what crosses the pipe, are the same.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable

# How long each side polls before it blocks. A warm call's gaps are a few microseconds; this
# covers them many times over, and bounds what a spin costs: the host burns at most this
# much CPU per call that takes longer, the worker at most this much after its last call.
SPIN_S = 0.0002
_MAIN_THREAD = threading.main_thread().ident  # see `spin`


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

    def spin(self) -> float:
        cpu = self.cpu
        if cpu is None or len(self.allowed) < 2:
            return 0.0
        if threading.active_count() > 1 or threading.get_ident() != _MAIN_THREAD:
            if self.split:  # another thread is alive: give the worker its CPUs back
                self.split = False
                self.avoided = -1
                with contextlib.suppress(OSError):  # the worker ended
                    os.sched_setaffinity(self.pid, self.allowed)
            return 0.0
        current = cpu()
        if current != self.avoided:
            self.avoided = current
            self.split = self._move_off(current)
        return SPIN_S if self.split else 0.0

    def _move_off(self, current: int) -> bool:
        others = self.allowed - {current}
        if current < 0 or not others:
            return False
        try:
            os.sched_setaffinity(self.pid, others)
        except OSError:  # the worker ended, or a cpuset refuses these CPUs
            return False
        return True
