"""Issue 15: where a warm worker runs relative to its caller (sandbox/placement.py).

From a worker's second call on, the host keeps the worker off the caller's CPU and both
sides poll briefly for each other before they block; with one CPU to use, nothing moves
and nothing polls. Only scheduling changes: the answers are the same either way.
"""

from __future__ import annotations

import os
import subprocess
import sys

from dyntools.sandbox import WorkerPool
from dyntools.sandbox.placement import SPIN_S, Placement, current_cpu_reader
from tests.support.environment import lacking

ECHO = '''
def run(params):
    return {"value": params.get("value")}
'''

if not hasattr(os, "sched_setaffinity"):
    lacking("no CPU affinity on this OS", module_level=True)


def _worker(pool: WorkerPool):  # type: ignore[no-untyped-def]
    return pool._idle[0]


# Run in a fresh process: the rule needs the caller to be the only Python thread, and a test
# process may hold threads other tests left behind.
KEPT_OFF = r"""
import os, sys, threading
from pathlib import Path
from dyntools.gate.policy import load_policy
from dyntools.sandbox import SandboxLimits, WorkerPool
path, = sys.argv[1:]
cpus = os.sched_getaffinity(0)
with WorkerPool(path, module_name="placed_v1", policy=load_policy(),
                limits=SandboxLimits(timeout_s=5.0), size=1) as pool:
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
    # Another thread alive: the host no longer polls, and the worker gets its CPUs back.
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert pool.call({"value": 7}) == {"value": 7}
        assert not placement.split and placement.spin() == 0.0
        assert os.sched_getaffinity(worker.pid) == cpus
    finally:
        release.set()
        other.join()
    assert pool.call({"value": 8}) == {"value": 8}
    assert placement.split
print("ok")
"""


def test_the_worker_is_kept_off_the_callers_cpu_while_it_is_the_only_thread(tool):
    cpus = os.sched_getaffinity(0)
    if len(cpus) < 2 or current_cpu_reader() is None:
        lacking("needs two CPUs and sched_getcpu")
    out = subprocess.run([sys.executable, "-c", KEPT_OFF, str(tool(ECHO))],
                         capture_output=True, text=True, check=False)
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
