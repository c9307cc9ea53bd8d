"""Framing between the host and a worker: a 4-byte big-endian length, then the payload.

Host to worker payloads are `marshal` data (the host is trusted and `marshal` costs the worker
no import); worker to host payloads are JSON text, which the host parses as untrusted input.
This module imports nothing, because the worker's start-up time is the cold-call budget.
"""

from __future__ import annotations

TYPE_CHECKING = False  # keep typing out of the worker's imports
if TYPE_CHECKING:
    from collections.abc import Callable

HEADER_BYTES = 4


def frame(payload: bytes) -> bytes:
    return len(payload).to_bytes(HEADER_BYTES, "big") + payload


def read_exact(read: Callable[[int, int], bytes], fd: int, size: int) -> bytes:
    """Read exactly `size` bytes or raise EOFError."""
    data = read(fd, size)
    if len(data) == size:
        return data
    chunks = [data]
    got = len(data)
    while got < size:
        if not data:
            raise EOFError("peer closed the pipe")
        data = read(fd, size - got)
        chunks.append(data)
        got += len(data)
    return b"".join(chunks)


def read_frame(read: Callable[[int, int], bytes], fd: int, max_bytes: int) -> bytes:
    header = read_exact(read, fd, HEADER_BYTES)
    size = int.from_bytes(header, "big")
    if size > max_bytes:
        raise ValueError(f"frame of {size} bytes exceeds the cap of {max_bytes}")
    return read_exact(read, fd, size) if size else b""
