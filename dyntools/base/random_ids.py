"""Random ids for calls, read from the OS's random source a batch at a time.

`os.urandom` releases the GIL around its system call: on a warm call, where the whole round
trip takes tens of microseconds, a CPU-bound thread in the host then takes the interpreter
for its switch interval (5 ms) before the call can go on. One read per batch keeps that to
one call in a batch; every id is fresh random bits used once, kept in this process. A child
forked from this process never hands out its parent's ids: in another process (after
`os.fork`, multiprocessing's "fork", or a C-level fork the interpreter's at-fork hooks never
see: uWSGI's prefork workers, a C extension's fork()) the batch and the lock are made anew.
"""

from __future__ import annotations

import os
import threading

BATCH_BYTES = 4096


class RandomIds:
    """Thread-safe: ids of `size` random bytes each, handed out once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._batch = b""
        self._at = 0
        self._pid = os.getpid()  # the process the batch and the lock belong to

    def take(self) -> bytes:
        if os.getpid() != self._pid:
            # A forked child: it has one thread, and the lock may be a copy of one another
            # thread of the parent held.
            self._forget()
        with self._lock:
            at = self._at
            if at + self.size > len(self._batch):
                self._batch, at = os.urandom(BATCH_BYTES - BATCH_BYTES % self.size), 0
            self._at = at + self.size
            return self._batch[at:at + self.size]

    def hex(self) -> str:
        return self.take().hex()

    def number(self) -> int:
        return int.from_bytes(self.take(), "big")

    def _forget(self) -> None:
        """In a forked child: a new lock, and no batch (the parent's is the parent's)."""
        self._lock = threading.Lock()
        self._batch = b""
        self._at = 0
        self._pid = os.getpid()

