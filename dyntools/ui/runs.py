"""The audit log as a timeline: `ensure` runs, station by station, followed while they happen.

    feed = RunFeed(registry_root / "audit.log")
    feed.poll()                        # read what was appended since the last poll
    feed.runs()                        # newest first: Run(id, tool, events, attempts, ...)
    feed.changed_since(seq)            # the runs updated after sequence number `seq`

The log is JSON lines (dyntools/base/log.py). An `ensure` run starts at its `lookup` station event
(`pipeline.station`) and takes the tool's station events and generation `attempt` events
that follow, until the tool's next lookup; an `execute` outside a run is a `call`, and a
reviewer's decision (`registry.approve`, `registry.reject`, ...) is an entry of its own.
Several processes may write to one log at once: runs are kept apart by tool. A run is
`running` while its last station is not a final one and the log moved within
`RUNNING_SECONDS`; a run whose process died stays `unfinished`.

Only the last `TAIL_BYTES` of the file are read at start, and at most `MAX_RUNS` runs are
kept; a line that is not JSON (a torn write, a foreign line) is skipped. A file that shrank
(rotated or truncated) is read again from its start.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dyntools.base.regular_files import open_regular

TAIL_BYTES = 8 << 20
MAX_RUNS = 2000
MAX_LINE_BYTES = 256 * 1024
RUNNING_SECONDS = 300.0
ATTACH_SECONDS = 30.0
STATION_EVENT = "pipeline.station"
ATTEMPT_EVENT = "attempt"
DECISION_EVENTS = frozenset({
    "registry.approve", "registry.reject", "registry.retire", "registry.approved",
    "registry.rejected", "registry.pointer_moved",
})
FAILED_OUTCOMES = frozenset({"failed", "rejected"})
ENSURE, CALL, DECISION = "ensure", "call", "decision"


def _text(value: Any, limit: int = 2000) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass(slots=True)
class Station:
    station: str
    outcome: str
    duration_ms: float | None
    version: int | None
    reason: str
    detail: str
    time: str

    @property
    def failed(self) -> bool:
        return self.outcome in FAILED_OUTCOMES

    @property
    def mark(self) -> str:
        """The CLI's mark column (dyntools/cli/ensure_cmd.py StationDisplay)."""
        if self.failed:
            return "FAIL"
        return {"miss": "miss", "hit": "hit", "pending": "wait", "new_version": "new"}.get(
            self.outcome, "ok")


@dataclass(slots=True)
class Attempt:
    number: int
    outcome: str
    codes: tuple[str, ...]
    sha256: str
    generator: str
    model: str
    time: str


@dataclass(slots=True)
class Run:
    id: str
    kind: str
    tool: str
    started: str
    seq: int = 0
    touched: float = 0.0  # the time of its latest event (epoch seconds)
    stations: list[Station] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    summary: str = ""  # a decision's one line

    @property
    def last(self) -> Station | None:
        return self.stations[-1] if self.stations else None

    @property
    def final(self) -> bool:
        last = self.last
        if self.kind != ENSURE:
            return True
        if last is None:
            return False
        return (last.failed or last.station in ("activate", "execute")
                or (last.station == "lookup" and last.outcome in ("hit", "pending")))

    @property
    def state(self) -> str:
        if self.final:
            failed = next((s for s in self.stations if s.failed), None)
            if failed is not None:
                return f"failed at {failed.station}"
            last = self.last
            if last is not None and last.outcome == "pending":
                return "pending approval"
            return "done"
        return "running" if time.time() - self.touched < RUNNING_SECONDS else "unfinished"

    @property
    def total_ms(self) -> float:
        return round(sum(s.duration_ms or 0.0 for s in self.stations), 3)

    @property
    def version(self) -> int | None:
        for station in reversed(self.stations):
            if station.version is not None:
                return station.version
        return None


class RunFeed:
    """Runs read from one audit log; thread-safe (`poll` from any request or stream)."""

    def __init__(self, path: Path, *, tail_bytes: int = TAIL_BYTES,
                 max_runs: int = MAX_RUNS) -> None:
        self.path = path
        self._tail = tail_bytes
        self._max = max_runs
        self._lock = threading.Lock()
        self._offset: int | None = None
        self._identity: tuple[int, int] | None = None
        self._partial = b""
        self._seq = 0
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._open: dict[str, Run] = {}  # tool -> its ensure run still taking events
        self.skipped = 0

    @property
    def seq(self) -> int:
        return self._seq

    def poll(self) -> None:
        with self._lock:
            self._read_new()

    def runs(self, *, limit: int = 200, kinds: frozenset[str] = frozenset({ENSURE, DECISION}),
             tool: str | None = None) -> list[Run]:
        with self._lock:
            chosen = [run for run in reversed(self._runs.values())
                      if run.kind in kinds and (tool is None or run.tool == tool)]
        return chosen[:limit]

    def changed_since(self, seq: int, kinds: frozenset[str]) -> list[Run]:
        with self._lock:
            return [run for run in self._runs.values() if run.seq > seq and run.kind in kinds]

    def attempts_for(self, tool: str, sha256: str) -> list[Attempt] | None:
        """The generation attempts of the run that produced these bytes, or None if the log
        (as far as it is read) holds no such run."""
        with self._lock:
            for run in reversed(self._runs.values()):
                if run.tool == tool and any(a.sha256 == sha256 and a.outcome == "accepted"
                                            for a in run.attempts):
                    return list(run.attempts)
        return None

    # ----------------------------------------------------------------------------- reading

    def _read_new(self) -> None:
        try:
            # A FIFO planted as audit.log would block a plain open (and every page poll):
            # only a regular file is read (base/regular_files.py).
            handle = open_regular(self.path)
        except OSError:
            return
        with handle:
            try:
                st = os.fstat(handle.fileno())
            except OSError:
                return
            identity = (st.st_dev, st.st_ino)
            if self._offset is None or identity != self._identity or st.st_size < self._offset:
                start = max(st.st_size - self._tail, 0) if self._offset is None else 0
                self._identity, self._partial = identity, b""
                handle.seek(start)
                if start:
                    handle.readline()  # a partial first line
                self._offset = handle.tell()
            if st.st_size == self._offset:
                return
            handle.seek(self._offset)
            data = handle.read(max(st.st_size - self._offset, 0))
            self._offset += len(data)
        base = self._offset - len(data) - len(self._partial)
        data, self._partial = self._partial + data, b""
        position = 0
        while True:
            end = data.find(b"\n", position)
            if end < 0:
                rest = data[position:]
                self._partial = rest if len(rest) <= MAX_LINE_BYTES else b""
                break
            self._line(data[position:end], base + position)
            position = end + 1

    def _line(self, raw: bytes, offset: int) -> None:
        if len(raw) > MAX_LINE_BYTES:
            self.skipped += 1
            return
        try:
            event = json.loads(raw)
        except (ValueError, RecursionError):
            self.skipped += 1
            return
        if isinstance(event, dict):
            self._event(event, offset)

    def _event(self, event: Mapping[str, Any], offset: int) -> None:
        name = event.get("event")
        tool = event.get("tool")
        if not isinstance(tool, str):
            return
        tool = tool[:100]
        stamp = _text(event.get("timestamp"), 40)
        if name == STATION_EVENT:
            self._station(event, tool, stamp, offset)
        elif name == ATTEMPT_EVENT:
            run = self._open.get(tool) or self._new(ENSURE, tool, stamp, offset)
            self._open[tool] = run
            codes = event.get("codes")
            run.attempts.append(Attempt(
                number=event["attempt"] if isinstance(event.get("attempt"), int) else 0,
                outcome=_text(event.get("outcome"), 40),
                codes=tuple(_text(c, 20) for c in codes) if isinstance(codes, list) else (),
                sha256=_text(event.get("sha256"), 64), generator=_text(event.get("generator"),
                                                                         100),
                model=_text(event.get("model"), 200) if event.get("model") else "",
                time=stamp))
            self._touch(run, stamp)
        elif name in DECISION_EVENTS:
            run = self._new(DECISION, tool, stamp, offset)
            run.summary = _decision_line(name, event)
            self._touch(run, stamp)

    def _station(self, event: Mapping[str, Any], tool: str, stamp: str, offset: int) -> None:
        duration = event.get("duration_ms")
        version = event.get("version")
        station = Station(
            station=_text(event.get("station"), 40), outcome=_text(event.get("outcome"), 40),
            duration_ms=float(duration) if isinstance(duration, int | float)
            and not isinstance(duration, bool) else None,
            version=version if isinstance(version, int) and not isinstance(version, bool)
            else None,
            reason=_text(event.get("reason"), 200), detail=_text(event.get("detail")),
            time=stamp)
        run = self._open.get(tool)
        if station.station == "lookup":
            run = self._new(ENSURE, tool, stamp, offset)
            self._open[tool] = run
        elif station.station == "execute":
            # `ensure --params` calls the tool right after its stations; any other execute
            # (`dyntools call`, an agent's call) is a call of its own.
            if run is None or (run.last is not None and run.last.failed) \
                    or _epoch(stamp) - run.touched > ATTACH_SECONDS:
                run = self._new(CALL, tool, stamp, offset)
            self._open.pop(tool, None)
        elif run is None:
            run = self._new(ENSURE, tool, stamp, offset)  # its lookup is before the tail
            self._open[tool] = run
        run.stations.append(station)
        self._touch(run, stamp)

    def _new(self, kind: str, tool: str, stamp: str, offset: int) -> Run:
        run = Run(id=f"r{offset}", kind=kind, tool=tool, started=stamp)
        self._runs[run.id] = run
        while len(self._runs) > self._max:
            _, old = self._runs.popitem(last=False)
            if self._open.get(old.tool) is old:
                del self._open[old.tool]
        return run

    def _touch(self, run: Run, stamp: str) -> None:
        self._seq += 1
        run.seq = self._seq
        run.touched = max(run.touched, _epoch(stamp))


def _epoch(stamp: str) -> float:
    """An event's time (the log writes ISO 8601 UTC); 0 for anything else."""
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return 0.0


def _decision_line(name: str, event: Mapping[str, Any]) -> str:
    action = name.split(".", 1)[1]
    action = {"approved": "approve", "rejected": "reject", "pointer_moved": "activate"}.get(
        action, action)
    if name == "registry.pointer_moved":
        action = _text(event.get("action"), 40) or action
    version = event.get("version", event.get("to"))
    parts = [f"{action} v{version}"]
    if event.get("by"):
        parts.append(f"by {_text(event.get('by'), 200)}")
    if event.get("reason"):
        parts.append(f"({_text(event.get('reason'), 500)})")
    if event.get("current") is not None:
        parts.append(f"; current v{event.get('current')}")
    return " ".join(parts)
