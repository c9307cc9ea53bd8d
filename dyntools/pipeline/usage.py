"""Usage from the audit log: how often each tool is called, how it fails, how long it takes.

    usage = read_usage(path, since=now - 30 * 86400, now=now)
    usage.as_dict(), usage.calls_of("slugify_text"), usage.versions_called

What is read: the audit log's `execute` events (`"event": "pipeline.station"`, `"station":
"execute"`: one per `Dyntools.call`, from the CLI, the catalog, the adapters, the servers)
whose timestamp falls in the window; every other line is passed over. A line that is not a
well-formed event (not JSON, a tool name that is not one, a duration that is not a number,
longer than MAX_LINE_BYTES) is counted as skipped, never trusted and never an error: the log
is a file anyone with access to the registry folder may have appended to. With no audit log
there is no usage (the report says so), and nothing is unused either: unknown is not unused.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dyntools.base.toolname import tool_name_problem

MAX_LINE_BYTES = 64 * 1024
_REASON = re.compile(r"[a-z][a-z0-9_]{0,63}")
EXECUTE_MARK = b'"execute"'  # a cheap first filter before a line is parsed


class Usage:
    """Execute events of one window, per tool."""

    def __init__(self, path: Path | None, since: float, now: float) -> None:
        self.path = path
        self.since = since
        self.now = now
        self.lines = 0
        self.skipped = 0
        self.events = 0
        self.note: str | None = None
        self._durations: dict[str, list[float]] = defaultdict(list)
        self._errors: dict[str, Counter[str]] = defaultdict(Counter)
        self._calls: Counter[str] = Counter()
        self.versions_called: set[tuple[str, int]] = set()

    def add(self, tool: str, version: int | None, ok: bool, reason: str | None,
            duration_ms: float | None) -> None:
        self.events += 1
        self._calls[tool] += 1
        if version is not None:
            self.versions_called.add((tool, version))
        if not ok:
            self._errors[tool][reason or "unknown"] += 1
        if duration_ms is not None:
            self._durations[tool].append(duration_ms)

    def calls_of(self, tool: str) -> int:
        return self._calls[tool]

    def tool_usage(self, tool: str) -> dict[str, Any]:
        calls = self._calls[tool]
        errors = self._errors.get(tool, Counter())
        failed = sum(errors.values())
        durations = sorted(self._durations.get(tool, []))
        return {
            "calls": calls,
            "errors": failed,
            "error_rate": round(failed / calls, 4) if calls else 0.0,
            "errors_by_reason": {reason: {"count": count, "rate": round(count / calls, 4)}
                                 for reason, count in sorted(errors.items())},
            "p50_ms": _percentile(durations, 50),
            "p99_ms": _percentile(durations, 99),
        }

    def source(self) -> dict[str, Any]:
        return {
            "audit_log": str(self.path) if self.path is not None else None,
            "since": _iso(self.since), "until": _iso(self.now),
            "lines_read": self.lines, "execute_events": self.events,
            "skipped": self.skipped, "note": self.note,
        }

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source(),
                "tools": {tool: self.tool_usage(tool) for tool in sorted(self._calls)}}


def read_usage(path: Path | None, *, since: float, now: float) -> Usage:
    """The execute events of the audit log at `path` between `since` and `now` (unix
    seconds); a missing or unreadable log gives an empty usage with a note."""
    usage = Usage(path, since, now)
    if path is None:
        usage.note = "no audit log is configured: usage is unknown"
        return usage
    try:
        for line in _lines(path):
            usage.lines += 1
            if EXECUTE_MARK not in line:
                continue
            event = _event(line)
            if event is None:
                usage.skipped += 1
                continue
            stamp, tool, version, ok, reason, duration = event
            if since <= stamp <= now:
                usage.add(tool, version, ok, reason, duration)
    except FileNotFoundError:
        usage.note = f"no audit log at {path}: usage is unknown"
    except OSError as exc:
        usage.note = f"the audit log {path} cannot be read ({exc.strerror or exc}): usage " \
                     "is unknown"
    return usage


def _lines(path: Path) -> Iterator[bytes]:
    from dyntools.base.regular_files import open_regular

    with open_regular(path) as file:
        while True:
            line = file.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            if len(line) > MAX_LINE_BYTES:
                # the rest of an overlong line is passed over, not read as lines of its own
                while line and not line.endswith(b"\n"):
                    line = file.readline(MAX_LINE_BYTES + 1)
                yield b"{}"
                continue
            yield line


def _event(line: bytes) -> tuple[float, str, int | None, bool, str | None,
                                 float | None] | None:
    """(time, tool, version, ok, reason, duration_ms) of an execute event, or None."""
    try:
        raw = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(raw, dict) or raw.get("event") != "pipeline.station" or raw.get(
            "station") != "execute":
        return None
    tool, version, outcome = raw.get("tool"), raw.get("version"), raw.get("outcome")
    if not isinstance(tool, str) or tool_name_problem(tool) is not None:
        return None
    if version is not None and (type(version) is not int or version < 1):
        return None
    if outcome not in ("ok", "failed"):
        return None
    reason = raw.get("reason")
    if reason is not None and (not isinstance(reason, str) or not _REASON.fullmatch(reason)):
        return None  # dyntools' reasons are codes: anything else was not written by it
    duration = raw.get("duration_ms")
    if duration is not None and (type(duration) not in (int, float)
                                 or not math.isfinite(duration) or duration < 0):
        return None
    stamp = _parse_time(raw.get("timestamp"))
    if stamp is None:
        return None
    return stamp, tool, version, outcome == "ok", reason, (
        float(duration) if duration is not None else None)


def _parse_time(value: Any) -> float | None:
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _percentile(values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile of sorted `values` (None when empty)."""
    if not values:
        return None
    rank = max(1, math.ceil(pct / 100 * len(values)))
    return round(values[rank - 1], 3)


def _iso(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).isoformat().replace("+00:00", "Z")


def parse_duration(text: str) -> float:
    """`30d`, `12h`, `45m`, `90s`, `2w` (or a bare number of seconds) as seconds; ValueError
    on anything else."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
    text = text.strip().lower()
    number, unit = (text[:-1], text[-1]) if text and text[-1] in units else (text, "s")
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"{text!r} is not a duration (e.g. 30d, 12h, 45m, 2w)") from None
    if not math.isfinite(value) or value <= 0 or value * units[unit] > 100 * 365 * 86400:
        raise ValueError(f"{text!r} is not a duration above 0 and at most 100 years")
    return value * units[unit]
