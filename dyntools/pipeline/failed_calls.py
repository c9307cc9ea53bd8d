"""Failed calls, kept so that one can be named for a repair: `dyntools repair NAME --call ID`.

Every `execute` audit event carries the call's `id`. A call that fails also keeps its params
here, so the operator can turn it into a counterexample without retyping them:

    <registry>/.failed_calls/<id>.json   {"id", "tool", "version", "time", "reason",
                                          "message", "params"}

Only failed calls are kept, never a call that succeeded. What is kept, and for how long:
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
MAX_RECORD_BYTES = MAX_PARAMS_BYTES + 4 * MAX_MESSAGE_CHARS + 4096


def new_call_id() -> str:
    """A call's id: 16 hex digits (64 random bits)."""
    return os.urandom(8).hex()


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

    def _write(self, call_id: str, text: str) -> None:
        if not CALL_ID.fullmatch(call_id):
            raise ValueError("not a call id")
        with contextlib.suppress(FileExistsError):
            os.mkdir(self.folder, 0o700)
        if self.folder.is_symlink() or not self.folder.is_dir():
            raise OSError(f"{self.folder} is not a real folder")
        temp = self.folder / f".{call_id}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temp, self.folder / f"{call_id}.json")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def prune(self, now: float | None = None) -> int:
        """Delete records past the retention, then the oldest past MAX_KEPT; how many went."""
        now = time.time() if now is None else now
        entries: list[tuple[float, str]] = []
        with os.scandir(self.folder) as listing:
            for entry in listing:
                if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
                    entries.append((entry.stat(follow_symlinks=False).st_mtime, entry.name))
        entries.sort()
        doomed = [name for mtime, name in entries if now - mtime > RETENTION_S]
        alive = len(entries) - len(doomed)
        if alive > MAX_KEPT:
            doomed += [name for _, name in entries[len(doomed):len(doomed) + alive - MAX_KEPT]]
        for name in doomed:
            with contextlib.suppress(OSError):
                os.unlink(self.folder / name)
        return len(doomed)

    def get(self, call_id: str, now: float | None = None) -> Mapping[str, Any] | None:
        """The kept record of `call_id`, or None (unknown, past the retention, unreadable)."""
        if not isinstance(call_id, str) or not CALL_ID.fullmatch(call_id):
            return None
        from dyntools.base.regular_files import read_regular

        try:
            data = read_regular(self.folder / f"{call_id}.json", MAX_RECORD_BYTES)
            record = json.loads(data)
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(record, dict) or record.get("id") != call_id:
            return None
        stamp = record.get("time")
        now = time.time() if now is None else now
        if not isinstance(stamp, int | float) or now - stamp > RETENTION_S:
            return None
        return record
