"""`with thing:` for what dyntools hands out that holds processes, threads, sockets or files."""

from __future__ import annotations

from typing import Self


class Closing:
    """A class with `close()`: `with obj:` closes it when the block ends, however it ends."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
