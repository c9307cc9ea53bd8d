"""Issue 15: where a warm worker runs relative to its caller (sandbox/placement.py).

From a worker's second call on, the host keeps the worker off the caller's CPU and both
sides poll briefly for each other before they block; with one CPU to use, nothing moves
and nothing polls. Only scheduling changes: the answers are the same either way.
"""

from __future__ import annotations

import os

import pytest

from dyntools.sandbox import WorkerPool
from dyntools.sandbox.placement import SPIN_S, Placement, current_cpu_reader

ECHO = '''
def run(params):
    return {"value": params.get("value")}
'''

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"),
                                reason="no CPU affinity on this OS")


def _worker(pool: WorkerPool):  # type: ignore[no-untyped-def]
    return pool._idle[0]


def test_the_worker_is_kept_off_the_callers_cpu(tool, policy, limits):
    cpus = os.sched_getaffinity(0)
    read_cpu = current_cpu_reader()
    if len(cpus) < 2 or read_cpu is None:
        pytest.skip("needs two CPUs and sched_getcpu")
    with WorkerPool(tool(ECHO), module_name="placed_v1", policy=policy, limits=limits,
                    size=1) as pool:
        pool.start()
        worker = _worker(pool)
        assert pool.call({"value": 1}) == {"value": 1}
        assert worker._placement is None  # a one-shot call pays nothing for placement
        assert os.sched_getaffinity(worker.pid) == cpus
        for n in range(50):
            assert pool.call({"value": n}) == {"value": n}
        placement = worker._placement
        assert placement is not None and placement.split
        assert placement.avoided not in os.sched_getaffinity(worker.pid)
        assert os.sched_getaffinity(worker.pid) == cpus - {placement.avoided}
        assert os.sched_getaffinity(0) == cpus  # the caller's own affinity is never touched


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


def test_while_another_thread_is_alive_the_host_does_not_poll(tool, policy, limits):
    """A thread polling in Python holds the GIL as a computing one does."""
    import threading

    cpus = os.sched_getaffinity(0)
    if len(cpus) < 2 or current_cpu_reader() is None:
        pytest.skip("needs two CPUs and sched_getcpu")
    with WorkerPool(tool(ECHO), module_name="placed_v1", policy=policy, limits=limits,
                    size=1) as pool:
        pool.start()
        worker = _worker(pool)
        for n in range(3):
            pool.call({"value": n})
        assert worker._placement.split
        release = threading.Event()
        other = threading.Thread(target=release.wait)
        other.start()
        try:
            assert pool.call({"value": 7}) == {"value": 7}
            assert not worker._placement.split
            assert worker._placement.spin() == 0.0
            assert os.sched_getaffinity(worker.pid) == cpus  # its CPUs back
        finally:
            release.set()
            other.join()
        assert pool.call({"value": 8}) == {"value": 8}
        assert worker._placement.split
