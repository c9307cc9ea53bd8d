"""Call ids: fresh random bits, each handed out once, one read of the OS's source per batch
(os.urandom releases the GIL: see dyntools/base/random_ids.py)."""

from __future__ import annotations

import os
import select
import threading

import pytest

from dyntools.base import random_ids
from dyntools.base.random_ids import BATCH_BYTES, RandomIds


def test_ids_are_unique_of_their_size_and_one_read_serves_a_batch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    real_urandom = os.urandom

    def urandom(n: int) -> bytes:
        reads.append(n)
        return real_urandom(n)

    monkeypatch.setattr(random_ids.os, "urandom", urandom)
    ids = RandomIds(7)
    per_batch = BATCH_BYTES // 7
    taken = [ids.take() for _ in range(per_batch + 1)]
    assert all(len(one) == 7 for one in taken)
    assert len(set(taken)) == len(taken)
    assert reads == [per_batch * 7, per_batch * 7]  # the first batch, then the next
    assert len(ids.hex()) == 14 and 0 <= ids.number() < 2 ** 56


def test_threads_never_get_the_same_id() -> None:
    ids = RandomIds(8)
    got: list[list[bytes]] = [[] for _ in range(4)]

    def take(into: list[bytes]) -> None:
        for _ in range(3000):
            into.append(ids.take())

    threads = [threading.Thread(target=take, args=(into,)) for into in got]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = [one for into in got for one in into]
    assert len(set(every)) == len(every) == 12000


def test_a_forked_child_never_hands_out_its_parents_ids() -> None:
    ids = RandomIds(8)
    ids.take()  # the parent holds a batch now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, to the parent
        os.close(read)
        os.write(write, b"".join(ids.take() for _ in range(16)))
        os._exit(0)
    os.close(write)
    child = b""
    while chunk := os.read(read, 4096):
        child += chunk
    os.close(read)
    assert os.waitpid(pid, 0)[1] == 0
    parent = b"".join(ids.take() for _ in range(16))
    assert len(child) == len(parent) == 128
    theirs = {child[i:i + 8] for i in range(0, 128, 8)}
    ours = {parent[i:i + 8] for i in range(0, 128, 8)}
    assert not theirs & ours


def test_a_child_forked_in_c_never_hands_out_its_parents_ids() -> None:
    """A fork the interpreter's at-fork hooks never see (uWSGI's prefork without
    --py-call-osafterfork, a C extension's fork())."""
    import ctypes

    ids = RandomIds(8)
    ids.take()
    libc = ctypes.CDLL(None, use_errno=True)
    read, write = os.pipe()
    pid = libc.fork()
    if pid == 0:
        os.close(read)
        os.write(write, ids.take())
        os._exit(0)
    os.close(write)
    child = os.read(read, 64)
    os.close(read)
    assert os.waitpid(pid, 0)[1] == 0
    assert len(child) == 8 and child != ids.take()


def test_a_child_forked_in_c_while_another_thread_holds_the_lock_does_not_hang() -> None:
    import ctypes
    import signal

    ids = RandomIds(8)
    ids.take()
    ids._lock.acquire()  # as another thread of the parent, inside take(), at the fork
    try:
        read, write = os.pipe()
        pid = ctypes.PyDLL(None).fork()
        if pid == 0:
            os.close(read)
            os.write(write, ids.take())
            os._exit(0)
    finally:
        ids._lock.release()
    os.close(write)
    ready = select.select([read], [], [], 30)[0]
    if not ready:
        os.kill(pid, signal.SIGKILL)
    child = os.read(read, 64) if ready else b""
    os.close(read)
    os.waitpid(pid, 0)
    assert len(child) == 8  # the child took an id, with a lock of its own
