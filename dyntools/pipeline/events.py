"""A station's events: what `ensure` records for its audit log and its listeners.

Every station ends in one audit event (structlog, event "pipeline.station") with tool, version,
station, duration_ms, outcome and reason; `on_station` listeners also see a "running" event as
each station starts (the CLI's live display).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from dyntools.base.log import get_logger
from dyntools.errors import (
    DyntoolsError,
)

STATIONS = ("generate", "gate", "load", "verify", "persist", "activate")
LOOKUP, EXECUTE = "lookup", "execute"
RUNNING, OK, FAILED = "running", "ok", "failed"
AUDIT_FILE = "audit.log"
AUDIT_EVENT = "pipeline.station"


class StationEvent(NamedTuple):
    """One station's start ("running") or end (any other outcome), as logged and displayed."""

    tool: str
    station: str
    outcome: str
    duration_ms: float | None = None
    version: int | None = None
    reason: str | None = None
    detail: str = ""

    @property
    def finished(self) -> bool:
        return self.outcome != RUNNING

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()


StationListener = Callable[[StationEvent], None]


class Outcome:
    """What a station body reports back to the recorder (defaults: success)."""

    __slots__ = ("detail", "outcome", "reason")

    def __init__(self) -> None:
        self.outcome: str = OK
        self.reason: str | None = None
        self.detail = ""


class Recorder:
    __slots__ = ("events", "listener", "tool", "version")

    def __init__(self, tool: str, listener: StationListener | None) -> None:
        self.tool = tool
        self.listener = listener
        self.version: int | None = None
        self.events: list[StationEvent] = []

    def emit(self, event: StationEvent) -> None:
        if event.finished:
            self.events.append(event)
            get_logger("pipeline").info(
                AUDIT_EVENT,
                tool=event.tool,
                version=event.version,
                station=event.station,
                duration_ms=event.duration_ms,
                outcome=event.outcome,
                reason=event.reason,
                detail=event.detail or None,
            )
        if self.listener is not None:
            self.listener(event)

    def done(self, station: str, outcome: str, duration_ms: float, *,
             reason: str | None = None, detail: str = "") -> None:
        self.emit(StationEvent(self.tool, station, outcome, round(duration_ms, 3),
                               self.version, reason, detail))

    @contextlib.contextmanager
    def station(self, station: str) -> Iterator[Outcome]:
        self.emit(StationEvent(self.tool, station, RUNNING, version=self.version))
        result = Outcome()
        started = time.perf_counter()
        try:
            yield result
        except DyntoolsError as exc:
            self.done(station, FAILED, ms_since(started), reason=exc.reason,
                      detail=exc.message)
            raise
        except BaseException as exc:
            self.done(station, FAILED, ms_since(started), reason="internal_error", detail=repr(exc))
            raise
        self.done(station, result.outcome, ms_since(started), reason=result.reason,
                  detail=result.detail)


def ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def approve_command(name: str, version: int, *, contract_change: bool = False) -> str:
    """The command a reviewer runs to approve a pending version: with `--contract-change`
    when the version was made with it (approving it without is refused)."""
    return f"dyntools approve {name} {version}" + (" --contract-change" if contract_change
                                                    else "")


def approve_command_for(record: Any) -> str:
    """`approve_command` for a recorded version (a VersionRecord), as its provenance asks."""
    return approve_command(record.name, record.version,
                           contract_change=recorded_contract_change(record.provenance))


def recorded_contract_change(provenance: Any) -> bool:
    """True when a version's provenance says it was made with `--contract-change`."""
    return isinstance(provenance, Mapping) and provenance.get("contract_change") is True


def log_execute(name: str, version: int | None, started: float, outcome: str,
                 reason: str | None, detail: str | None, call_id: str | None = None,
                 params_kept: bool | None = None) -> None:
    """One call's audit event; `id` names it (`dyntools repair NAME --call ID` for a failed
    one whose params were kept: `params_kept`)."""
    extra: dict[str, Any] = {} if params_kept is None else {"params_kept": params_kept}
    get_logger("pipeline").info(
        AUDIT_EVENT, tool=name, version=version, station=EXECUTE,
        duration_ms=round(ms_since(started), 3), outcome=outcome, reason=reason, detail=detail,
        id=call_id, **extra,
    )
