"""`with thing:` for what dyntools hands out that holds processes, threads, sockets or files,
and the parts such a thing makes on first use and closes with itself."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, Protocol, Self, TypeVar


class Closing:
    """A class with `close()`: `with obj:` closes it when the block ends, however it ends."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Closable(Protocol):
    def close(self) -> None: ...


C = TypeVar("C", bound=_Closable)


class OnDemand(Generic[C]):
    """A part made on first use, once, whatever the threads (`get`), and closed with its
    owner (`close`: taken out under the lock, closed outside it, since a close may wait).
    `made` is a part the owner was given instead, closed all the same."""

    def __init__(self, make: Callable[[], C], made: C | None = None) -> None:
        self._make = make
        self._part = made
        self._lock = threading.Lock()

    def get(self) -> C:
        with self._lock:
            if self._part is None:
                self._part = self._make()
            return self._part

    def close(self) -> None:
        with self._lock:
            part, self._part = self._part, None
        if part is not None:
            part.close()
