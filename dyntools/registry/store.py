"""Durable files on disk: atomic writes, no-follow reads, and the cross-process writer lock.

Every write goes temp file -> fsync -> rename -> fsync of the folder, so a reader (or a
process that starts after a crash) sees either the old file or the complete new one, never a
torn one. Version files are additionally written without overwrite (a hard link that fails
if the name exists), because a version, once written, is immutable.

Adding a version needs the version file durable before the manifest that points at it is
renamed into place. The fsyncs that have no order between them (the version file, its folder
entry, the manifest's temp file) run concurrently (`sync_all`): on ext4 they then share one
journal commit, which measured 4-10x faster than issuing them one after another.

Temp files are dotfiles named `.tmp-<target>-<pid>-<random>`; readers ignore them, and a
writer holding the lock removes any it finds (no other writer can be running, so they are
leftovers of a killed process).
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

TEMP_PREFIX = ".tmp-"
LOCK_NAME = ".lock"
VERSION_FILE_MODE = 0o444
MANIFEST_MODE = 0o644

# O_NONBLOCK: opening a FIFO planted under a version file's name must not block (it is then
# refused as not a regular file); it changes nothing for a regular file.
_OPEN_READ = (
    os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
)
_OPEN_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)


class NotARegularFile(OSError):
    """The path is a symlink, a folder or a device: never read through it."""


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_EXECUTORS: dict[int, ThreadPoolExecutor] = {}  # per process id


def _sync_path(path: Path) -> None:
    flags = os.O_RDONLY | os.O_CLOEXEC
    if path.is_dir():
        flags |= getattr(os, "O_DIRECTORY", 0)
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_all(paths: Sequence[Path]) -> None:
    """fsync files and folders concurrently; returns when all are durable (or raises)."""
    pid = os.getpid()
    executor = _EXECUTORS.get(pid)
    if executor is None:
        from concurrent.futures import ThreadPoolExecutor  # a writer's: readers never pay

        # Per process: a pool inherited across fork has no threads behind it.
        _EXECUTORS.clear()
        executor = _EXECUTORS[pid] = ThreadPoolExecutor(4, thread_name_prefix="dyntools-fsync")
    for future in [executor.submit(_sync_path, p) for p in paths]:
        future.result()


def write_temp(target: Path, data: bytes, mode: int, *, sync: bool = True) -> Path:
    """Write `data` to a fresh temp file beside `target`; fsync it unless told not to."""
    # os.urandom, as secrets.token_hex reads it (importing secrets would also load random,
    # hmac and base64 into every cold `dyntools call`)
    temp = target.parent / f"{TEMP_PREFIX}{target.name}-{os.getpid()}-{os.urandom(4).hex()}"
    fd = os.open(temp, _OPEN_NEW, 0o600)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fchmod(fd, mode)
        if sync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    os.close(fd)
    return temp


def publish(temp: Path, target: Path) -> None:
    """Rename a durable temp file over `target` and make the rename durable."""
    try:
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    fsync_dir(target.parent)


def write_replace(target: Path, data: bytes, *, mode: int = MANIFEST_MODE) -> None:
    """Atomically replace `target` with `data`, durably."""
    publish(write_temp(target, data, mode), target)


def link_new(target: Path, data: bytes, *, mode: int = VERSION_FILE_MODE) -> None:
    """Create `target` complete or not at all; FileExistsError if it exists. NOT yet durable:
    the caller must `sync_all([target, target.parent])` before anything points at it."""
    temp = write_temp(target, data, mode, sync=False)
    try:
        # link(2) never replaces an existing name, unlike rename(2).
        os.link(temp, target, follow_symlinks=False)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """Read a regular file without following a symlink at its last component; with `limit`,
    at most `limit + 1` bytes (enough to see that the file is longer than expected)."""
    try:
        fd = os.open(path, _OPEN_READ)
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: the last component is a symlink
            raise NotARegularFile(exc.errno, "is a symlink", str(path)) from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile(0, "not a regular file", str(path))
        chunks: list[bytes] = []
        left = limit + 1 if limit is not None else None
        while left is None or left > 0:
            chunk = os.read(fd, 1 << 20 if left is None else min(1 << 20, left))
            if not chunk:
                break
            chunks.append(chunk)
            if left is not None:
                left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def is_real_dir(path: Path) -> bool:
    """A folder that is not a symlink to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def remove_stale_temps(folder: Path) -> list[str]:
    """Delete temp files left by a killed writer. Call only while holding the writer lock."""
    removed: list[str] = []
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(folder):
            if entry.name.startswith(TEMP_PREFIX) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed.append(entry.name)
    return removed


class WriterLockTimeout(OSError):
    """The writer lock was not free within the timeout; `lock_file` names it."""

    def __init__(self, lock_file: str) -> None:
        super().__init__(f"timed out waiting for {lock_file}")
        self.lock_file = lock_file


class WriterLock:
    """Serialises writers: across processes with a `filelock` on `<root>/.lock`, and across
    threads of one process with a plain lock (filelock's own lock is per thread). filelock
    is imported by the first writer: a process that only reads never pays for it."""

    def __init__(self, root: Path, timeout: float = 30.0, *, name: str = LOCK_NAME) -> None:
        self._path = root / name
        self._timeout = timeout
        self._pid = os.getpid()
        self._threads = threading.RLock()
        self._file: Any = None

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        if os.getpid() != self._pid:
            # A forked child (multiprocessing, a pre-fork server) gets its own lock objects:
            # filelock refuses an instance inherited across fork.
            self._pid, self._threads, self._file = os.getpid(), threading.RLock(), None
        import filelock

        with self._threads:
            if self._file is None:
                self._file = filelock.FileLock(self._path, timeout=self._timeout)
            try:
                self._file.acquire()
            except filelock.Timeout as exc:
                raise WriterLockTimeout(str(exc.lock_file)) from exc
            try:
                yield
            finally:
                self._file.release()
