"""Random ids for calls, read from the OS's random source a batch at a time.

`os.urandom` releases the GIL around its system call: on a warm call, where the whole round
trip takes tens of microseconds, a CPU-bound thread in the host then takes the interpreter
for its switch interval (5 ms) before the call can go on. One read per batch keeps that to
one call in `BATCH`; every id is fresh random bits used once, kept in this process.
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

    def take(self) -> bytes:
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
