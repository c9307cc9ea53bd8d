"""Issue 15: where a warm worker runs relative to its caller (sandbox/placement.py).

From a worker's second call on, the host keeps the worker off the caller's CPU and both
sides poll briefly for each other before they block; with one CPU to use, nothing moves
and nothing polls. Only scheduling changes: the answers are the same either way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from dyntools.sandbox import WorkerPool
from dyntools.sandbox.placement import (
    AGAIN_PAUSES,
    CONTENDED_S,
    PAUSE_MAX_S,
    PAUSE_MIN_S,
    SPIN_S,
    GilWatch,
    Placement,
    current_cpu_reader,
    gil_watch,
)
from tests.support.environment import lacking

ECHO = '''
def run(params):
    return {"value": params.get("value")}
'''

if not hasattr(os, "sched_setaffinity"):
    lacking("no CPU affinity on this OS", module_level=True)


def _worker(pool: WorkerPool):  # type: ignore[no-untyped-def]
    return pool._idle[0]


# Run in a fresh process: a test process may hold threads other tests left behind, and this
# one starts its own on purpose.
KEPT_OFF = r"""
import os, sys, threading, time
from pathlib import Path
from dyntools.gate.policy import load_policy
from dyntools.sandbox import SandboxLimits, WorkerPool
from dyntools.sandbox.placement import gil_watch
path, = sys.argv[1:]
cpus = os.sched_getaffinity(0)

def calls(pool, seconds):
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        assert pool.call({"value": n}) == {"value": n}
        n += 1
    return n

with WorkerPool(path, module_name="placed_v1", policy=load_policy(),
                limits=SandboxLimits(timeout_s=5.0), size=1,
                max_calls_per_worker=10**9) as pool:
    pool.start()
    worker = pool._idle[0]
    assert pool.call({"value": 1}) == {"value": 1}
    assert worker._placement is None  # a one-shot call pays nothing for placement
    assert os.sched_getaffinity(worker.pid) == cpus
    for n in range(50):
        assert pool.call({"value": n}) == {"value": n}
    placement = worker._placement
    assert placement is not None and placement.split
    assert os.sched_getaffinity(worker.pid) == cpus - {placement.avoided}
    assert os.sched_getaffinity(0) == cpus  # the caller's own affinity is never touched

    # An idle thread alive, and the calls made from another thread than the main one: the
    # host still spins (an idle thread wants no GIL) and never pauses.
    # (The idle thread is a daemon: a failed assertion must end this script, not leave it
    # waiting for that thread at exit. The caller starts calling once this thread, which
    # started it, waits in join(): starting a thread is computing too.)
    release = threading.Event()
    idle = threading.Thread(target=release.wait, daemon=True)
    idle.start()
    def settled_calls(pool, seconds):
        time.sleep(0.05)
        return calls(pool, seconds)
    caller = threading.Thread(target=settled_calls, args=(pool, 0.1))
    try:
        caller.start()
        caller.join()
        assert placement.split and placement.spin() > 0, "no spin beside an idle thread"
        # One pause can still come beside an idle thread (about 1 run in 6 here: a known
        # false positive of the rule, issue 30); more would mean the idle thread is taken
        # for a computing one.
        assert gil_watch.pauses <= 1, "an idle thread was taken for a computing one"
    finally:
        release.set()
        idle.join()

    # A computing thread: once a spinning call loses the GIL to it, every call blocks for a
    # pause, and the worker has all its CPUs back.
    stop = []
    def busy():
        while not stop:
            pass
    computing = threading.Thread(target=busy, daemon=True)
    computing.start()
    try:
        calls(pool, 0.3)
        assert gil_watch.pauses > 0, "the computing thread was never noticed"
        gil_watch.paused_until = time.monotonic() + 60
        assert pool.call({"value": 9}) == {"value": 9}
        assert placement.spin() == 0.0 and not placement.split
        assert os.sched_getaffinity(worker.pid) == cpus
    finally:
        stop.append(1)
        computing.join()
print("ok")
"""


def test_the_worker_is_kept_off_the_callers_cpu_unless_a_host_thread_computes(tool):
    cpus = os.sched_getaffinity(0)
    if len(cpus) < 2 or current_cpu_reader() is None:
        lacking("needs two CPUs and sched_getcpu")
    out = subprocess.run([sys.executable, "-c", KEPT_OFF, str(tool(ECHO))],
                         capture_output=True, text=True, check=False, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_with_one_cpu_nothing_moves_and_nothing_spins(tool, policy, limits):
    cpus = os.sched_getaffinity(0)
    one = {min(cpus)}
    os.sched_setaffinity(0, one)
    try:
        with WorkerPool(tool(ECHO), module_name="placed_v1", policy=policy, limits=limits,
                        size=1) as pool:
            pool.start()
            worker = _worker(pool)
            for n in range(5):
                assert pool.call({"value": n}) == {"value": n}
            assert worker._placement is not None
            assert worker._placement.spin() == 0.0
            assert os.sched_getaffinity(worker.pid) == one
    finally:
        os.sched_setaffinity(0, cpus)


def test_a_placement_that_cannot_move_the_worker_does_not_spin():
    placement = Placement(os.getpid())
    placement.pid = -1  # no such process: sched_setaffinity fails
    placement.allowed = frozenset({0, 1})
    placement.avoided = -2
    assert placement.spin() == 0.0
    assert SPIN_S > 0


def test_a_call_the_other_threads_did_not_compute_through_is_no_contention():
    watch = GilWatch()
    watch.judge(others=0.0, wall=1e-3)  # an idle thread, or a busy machine
    watch.judge(others=CONTENDED_S / 2, wall=CONTENDED_S)  # a wake-up, not a GIL hand-off
    watch.judge(others=2 * CONTENDED_S, wall=1.0)  # a little, over a long call
    assert watch.pauses == 0 and not watch.paused()


def test_contention_pauses_spinning_longer_each_time_it_comes_back():
    watch = GilWatch()
    watch.judge(others=5e-3, wall=5.1e-3)  # a computing thread held the GIL 5 ms
    assert watch.paused() and watch.pause == PAUSE_MIN_S and watch.pauses == 1
    watch.judge(others=5e-3, wall=5.1e-3)  # while paused: nothing more
    assert watch.pauses == 1
    time.sleep(PAUSE_MIN_S * 1.5)
    assert not watch.paused()
    watch.judge(others=5e-3, wall=5.1e-3)  # soon after the pause: it doubles
    assert watch.pause == 2 * PAUSE_MIN_S and watch.pauses == 2
    watch.paused_until = time.monotonic() - (AGAIN_PAUSES + 1) * watch.pause
    watch.judge(others=5e-3, wall=5.1e-3)  # long after: back to the shortest
    assert watch.pause == PAUSE_MIN_S and watch.pauses == 3
    watch.pause = PAUSE_MAX_S
    watch.paused_until = time.monotonic() - 1e-3
    watch.judge(others=5e-3, wall=5.1e-3)
    assert watch.pause == PAUSE_MAX_S  # never longer


@pytest.fixture
def sleeper():  # a process whose affinity a Placement may change (never this one's)
    child = subprocess.Popen([sys.executable, "-I", "-S", "-c", "import time; time.sleep(60)"])
    yield child.pid
    child.kill()
    child.wait()


def test_a_pause_or_more_callers_than_cpu_pairs_block_and_free_the_worker(sleeper):
    placement = Placement(sleeper)
    if len(placement.allowed) < 2 or placement.cpu is None:
        lacking("needs two CPUs and sched_getcpu")
    pairs = len(placement.allowed) // 2
    assert placement.spin(in_flight=pairs) == SPIN_S and placement.split
    assert placement.spin(in_flight=pairs + 1) == 0.0 and not placement.split
    assert os.sched_getaffinity(sleeper) == placement.allowed
    assert placement.spin() == SPIN_S
    gil_watch.paused_until = time.monotonic() + 60
    try:
        assert placement.spin() == 0.0 and not placement.split
    finally:
        gil_watch.paused_until = 0.0
    assert placement.spin() == SPIN_S
