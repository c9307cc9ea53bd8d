"""Files a person names on the command line (keys, policies, tokens, tool sources), read only
when they are regular files.

Threat: `open()` of a FIFO waits for a writer, so a trusted-keys path that is a FIFO hung
every command; a device (`/dev/zero`, `/dev/urandom`) never ends; a folder is not a file. A
check with `stat` before the `open` leaves a window in which the path can be swapped. So the
path is opened with O_NONBLOCK (a FIFO opens at once, with no writer) and the descriptor
that was opened is checked with `fstat`: anything but a regular file is `NotRegularFile`,
an OSError whose `strerror` says what the path is ("is a FIFO, not a regular file"), so the
callers' existing `except OSError` messages name it. A symlink is followed, and judged by
what it points to. O_NONBLOCK changes nothing for a regular file's reads.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import BinaryIO


class NotRegularFile(OSError):
    """The path is a folder, a FIFO, a device or a socket; `kind` names it."""

    def __init__(self, path: str, kind: str) -> None:
        code = errno.EISDIR if kind == "folder" else errno.EINVAL
        super().__init__(code, f"is a {kind}, not a regular file", path)
        self.kind = kind


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` opened for reading in binary mode, if what it names is a regular file;
    NotRegularFile, or the OSError of the open (a missing file, no permission), if not."""
    shown = os.fspath(path)
    fd = os.open(shown, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(os.fsdecode(shown), _kind(mode))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_append_regular(path: str | os.PathLike[str]) -> int:
    """A descriptor open for appending to the regular file at `path` (created with mode 0o600
    when missing); the caller owns it. Not for a path someone else may have planted.

    Threat: an append-only log (the registry's `audit.log`) sits in a folder a registry writer
    controls. Replaced by a symlink to the operator's shell start-up file, a plain
    `open(path, "a")` appended attacker-chosen text there (code execution as the operator);
    replaced by a FIFO, the open waited for a reader for ever. So the last component is never
    followed (O_NOFOLLOW: ELOOP, reported as "is a symlink"), the open never waits
    (O_NONBLOCK), and the descriptor opened is checked with `fstat`: anything but a regular
    file is NotRegularFile. O_NONBLOCK is cleared before returning, so writes behave as usual.
    """
    shown = os.fspath(path)
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
             | os.O_CLOEXEC)
    try:
        fd = os.open(shown, flags, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegularFile(os.fsdecode(shown), "symlink") from None
        if exc.errno == errno.ENXIO:  # a FIFO with no reader, opened for writing
            raise NotRegularFile(os.fsdecode(shown), "FIFO") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(os.fsdecode(shown), _kind(mode))
        os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """At most `limit` bytes of the regular file at `path` (a caller that reads one byte more
    than it allows knows the file is too large); errors as `open_regular`."""
    with open_regular(path) as handle:
        return handle.read(limit)
