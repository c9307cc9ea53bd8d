"""Live watch: apply the open rules while a long-running process is up.

A watchdog observer reports changes under the registry root; the tools they touch are
re-read and re-checked on a small worker thread (events arrive in bursts: temp file, write,
rename, so they are coalesced for a few milliseconds). An edited version file is quarantined,
a deleted one is reported, and a file dropped in by hand stays untrusted until approved.

watchdog 7 reports an atomic save (temp file, then rename) as a moved event: the file that
now exists is `dest_path`, so both paths of a move are considered. Open and close-without-write
events are ignored: the registry's own reads would otherwise wake it up forever.

inotify reports only what is done through a path inside the watched folders: a hard link
made from elsewhere, and every write through it, produce no event here. So the watcher also
sweeps the version files' metadata (inode, size, times, link count) every `sweep_seconds`
(one `lstat` per version file; ~1 ms per 1,000 versions) and re-checks any tool whose files
changed: a version file with a second name is quarantined (`hard_linked`), an edit through
one fails its hash.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Protocol

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from dyntools.base.log import get_logger
from dyntools.base.toolname import tool_name_problem
from dyntools.registry.manifest import parse_version_file_name
from dyntools.registry.store import LOCK_NAME, TEMP_PREFIX, is_real_dir


class Watched(Protocol):
    """What the watcher needs of a registry (core.Registry is one; this module never imports
    it, so the registry imports the watch only when one is started)."""

    @property
    def root(self) -> Path: ...

    def refresh(self, name: str | None = None) -> None: ...

    def forget_cached_check(self, name: str, version: int) -> None: ...

    def writers_excluded(self) -> contextlib.AbstractContextManager[None]: ...

_RELEVANT = frozenset({"created", "modified", "moved", "deleted", "closed"})
_ALL_TOOLS = ""


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: RegistryWatcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _RELEVANT:
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                self._watcher.note_path(os.fsdecode(raw))


class RegistryWatcher:
    """Start with `start()` (or use as a context manager); `stop()` ends both threads."""

    def __init__(self, registry: Watched, *, coalesce_seconds: float = 0.02,
                 sweep_seconds: float = 1.0) -> None:
        self.registry = registry
        self._root = registry.root.resolve()
        self._coalesce = coalesce_seconds
        self._sweep_every = sweep_seconds
        self._files: dict[tuple[str, int], tuple[int, ...]] = {}
        self._dirty: set[str] = set()
        self._wake = threading.Condition()
        self._stopping = False
        self._observer = Observer()
        self._observer.schedule(_Handler(self), str(self._root), recursive=True)
        self._worker = threading.Thread(target=self._run, name="dyntools-registry-watch",
                                        daemon=True)
        self.refreshes = 0

    def start(self) -> RegistryWatcher:
        self._files = self._version_files()
        self._observer.start()
        self._worker.start()
        # Anything that changed between open and the observer starting is caught here.
        self._mark(_ALL_TOOLS)
        return self

    def stop(self) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        self._observer.stop()
        with contextlib.suppress(RuntimeError):
            self._observer.join(timeout=5)
        if self._worker.is_alive():
            self._worker.join(timeout=5)

    def __enter__(self) -> RegistryWatcher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def note_path(self, raw: str) -> None:
        try:
            parts = Path(raw).resolve().relative_to(self._root).parts
        except ValueError:
            return
        if not parts or parts[0] in (LOCK_NAME,) or parts[0].startswith("."):
            return
        name = parts[0]
        if len(parts) == 1:
            # A tool folder appeared or went away, or a stray entry at the root. Plain files
            # at the root (README, audit.log: written by the log of this very refresh) are
            # not part of any tool.
            if tool_name_problem(name) is None:
                self._mark(name)
            elif os.path.isdir(raw) or os.path.islink(raw):
                self._mark(_ALL_TOOLS)
            return
        if tool_name_problem(name) is not None:
            self._mark(_ALL_TOOLS)
            return
        leaf = parts[1]
        if leaf.startswith(TEMP_PREFIX):
            return  # a writer's temp file: its final rename arrives as its own event
        version = parse_version_file_name(leaf)
        if version is not None:
            self.registry.forget_cached_check(name, version)
        self._mark(name)

    def _mark(self, name: str) -> None:
        with self._wake:
            self._dirty.add(name)
            self._wake.notify_all()

    def _version_files(self) -> dict[tuple[str, int], tuple[int, ...]]:
        """(tool, version) -> what lstat says of its file, for every version file on disk."""
        found: dict[tuple[str, int], tuple[int, ...]] = {}
        with contextlib.suppress(OSError):
            for tool in os.scandir(self._root):
                if tool_name_problem(tool.name) is not None or not is_real_dir(Path(tool.path)):
                    continue
                with contextlib.suppress(OSError):
                    for entry in os.scandir(tool.path):
                        version = parse_version_file_name(entry.name)
                        if version is None:
                            continue
                        with contextlib.suppress(OSError):
                            st = entry.stat(follow_symlinks=False)
                            found[(tool.name, version)] = (
                                st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns,
                                st.st_nlink)
        return found

    def _sweep(self) -> None:
        """Mark the tools whose version files changed in ways no event reported."""
        now = self._version_files()
        for key in now.keys() | self._files.keys():
            if now.get(key) != self._files.get(key):
                self.registry.forget_cached_check(*key)
                self._mark(key[0])
        self._files = now

    def _run(self) -> None:
        log = get_logger("registry")
        next_sweep = time.monotonic() + self._sweep_every
        while True:
            with self._wake:
                while not self._dirty and not self._stopping:
                    left = next_sweep - time.monotonic()
                    if left <= 0:
                        break
                    self._wake.wait(left)
                if self._stopping:
                    return
            if time.monotonic() >= next_sweep:
                self._sweep()
                next_sweep = time.monotonic() + self._sweep_every
                with self._wake:
                    if not self._dirty:
                        continue
            # Let the rest of a burst (temp file, write, rename, fsync) arrive first.
            threading.Event().wait(self._coalesce)
            with self._wake:
                dirty, self._dirty = self._dirty, set()
            try:
                # Under the writer lock: a writer between its version file and its manifest
                # would otherwise look like a file dropped in by hand.
                with self.registry.writers_excluded():
                    if _ALL_TOOLS in dirty:
                        self.registry.refresh()
                    else:
                        for name in sorted(dirty):
                            self.registry.refresh(name)
                self.refreshes += 1
            except Exception as exc:  # keep watching; one bad refresh must not end the watch
                log.error("registry.watch_refresh_failed", error=repr(exc), tools=sorted(dirty))
