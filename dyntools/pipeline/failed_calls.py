"""Failed calls, kept so that one can be named for a repair: `dyntools repair NAME --call ID`.

Every `execute` audit event carries the call's `id`. A call that fails also keeps its params
here, so the operator can turn it into a counterexample without retyping them:

    <registry>/.failed_calls/<id>.json   {"id", "tool", "version", "time", "reason",
                                          "message", "params"}

Only calls that reached the tool and failed there are kept (a runtime error, a bad result,
a time or memory limit, a refused request, a crash), never a call that succeeded, one that
did not reach the tool, or one made while a composing tool is verified. What is kept, and
for how long:
- redacted as the broker redacts: every value of every secret the operator's capability policy
  holds (and what the call's own host learnt), in each of its encodings, becomes
  `[redacted:NAME]`, in the params and the message;
- at most MAX_PARAMS_BYTES (16 KiB) of params as JSON: larger params are not kept (the record
  says so, and `repair --call` says why it cannot use it);
- at most MAX_KEPT (1,000) records and RETENTION_DAYS (30) days: older ones are deleted when a
  new one is written, and a record past the retention is never read;
- the folder is 0700 and each record 0600 (params are the callers' data); nothing is kept on a
  read-only registry, or when `.failed_calls` is not a real folder (a symlink is never
  followed); keeping is best effort and never fails the call it records.
`Dyntools(..., keep_failed_calls=False)` keeps nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

FOLDER = ".failed_calls"
MAX_PARAMS_BYTES = 16 * 1024
MAX_MESSAGE_CHARS = 2000
MAX_KEPT = 1000
RETENTION_DAYS = 30
RETENTION_S = RETENTION_DAYS * 24 * 3600
CALL_ID = re.compile(r"[0-9a-f]{16}")
# a message character is at most 6 bytes of JSON (`\u0001`); the rest of a record is short
MAX_RECORD_BYTES = MAX_PARAMS_BYTES + 6 * MAX_MESSAGE_CHARS + 4096


class FailedCalls:
    """The kept failed calls of one registry."""

    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER

    def keep(self, call_id: str, tool: str, version: int | None, params: Any, reason: str,
             message: str, redact: Callable[[Any], Any]) -> bool:
        """Write the record (best effort); True when its params were kept."""
        try:
            clean = redact(params)
            text = json.dumps(clean, sort_keys=True, ensure_ascii=False, allow_nan=False)
            kept = len(text.encode("utf-8")) <= MAX_PARAMS_BYTES
        except (TypeError, ValueError, RecursionError):
            clean, kept = None, False
        shown = redact(message)
        record = {
            "id": call_id, "tool": tool, "version": version, "time": time.time(),
            "reason": reason,
            "message": shown[:MAX_MESSAGE_CHARS] if isinstance(shown, str) else None,
            "params": clean if kept else None,
            **({} if kept else {"params_dropped": f"the params were over {MAX_PARAMS_BYTES} "
                                                  "bytes of JSON, or not JSON"}),
        }
        try:
            self._write(call_id, json.dumps(record, ensure_ascii=False, allow_nan=False))
        except (OSError, TypeError, ValueError, RecursionError):
            return False
        with contextlib.suppress(OSError):
            self.prune()
        return kept

    def _folder_fd(self, *, create: bool) -> int:
        """The folder, opened without following a symlink: every name below is then reached
        through this descriptor, so a folder swapped for a symlink after the check cannot send
        a write (or a read) anywhere else."""
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(self.folder, 0o700)
        return os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)

    def _write(self, call_id: str, text: str) -> None:
        if not CALL_ID.fullmatch(call_id):
            raise ValueError("not a call id")
        folder = self._folder_fd(create=True)
        try:
            temp = f".{call_id}.tmp"
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o600, dir_fd=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as file:
                    file.write(text)
                os.replace(temp, f"{call_id}.json", src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=folder)
                raise
        finally:
            os.close(folder)

    def prune(self, now: float | None = None) -> int:
        """Delete records past the retention, then the oldest past MAX_KEPT; how many went."""
        now = time.time() if now is None else now
        folder = self._folder_fd(create=False)
        try:
            entries: list[tuple[float, str]] = []
            for name in os.listdir(folder):
                if not name.endswith(".json"):
                    continue
                with contextlib.suppress(OSError):
                    info = os.stat(name, dir_fd=folder, follow_symlinks=False)
                    entries.append((info.st_mtime, name))
            entries.sort()
            doomed = [name for mtime, name in entries if now - mtime > RETENTION_S]
            alive = len(entries) - len(doomed)
            if alive > MAX_KEPT:
                doomed += [name for _, name in
                           entries[len(doomed):len(doomed) + alive - MAX_KEPT]]
            for name in doomed:
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=folder)
            return len(doomed)
        finally:
            os.close(folder)

    def get(self, call_id: str, now: float | None = None) -> Mapping[str, Any] | None:
        """The kept record of `call_id`, or None (unknown, past the retention, unreadable)."""
        if not isinstance(call_id, str) or not CALL_ID.fullmatch(call_id):
            return None
        try:
            folder = self._folder_fd(create=False)
            try:
                fd = os.open(f"{call_id}.json", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                             | os.O_CLOEXEC, dir_fd=folder)
            finally:
                os.close(folder)
            with os.fdopen(fd, "rb") as file:
                if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                    return None  # a FIFO or a device: never read
                record = json.loads(file.read(MAX_RECORD_BYTES + 1))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(record, dict) or record.get("id") != call_id:
            return None
        stamp = record.get("time")
        now = time.time() if now is None else now
        if not isinstance(stamp, int | float) or now - stamp > RETENTION_S:
            return None
        return record
