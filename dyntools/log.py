"""structlog configuration: JSON lines on stderr, and optionally an audit file.

stdout belongs to CLI results and to the MCP stdio protocol, and structlog writes to stdout by
default, so `configure_logging` must run before anything logs in a process that prints results.
The audit file (normally `<registry>/audit.log`) always receives info and above, whatever the
stderr level, so a quiet terminal never means a thin audit trail.

    configure_logging("warning", audit_path=registry / "audit.log")
    log = get_logger("pipeline")
    log.info("station", station="gate", tool="slugify_text", outcome="accepted", ms=0.4)

Tests read events with `structlog.testing.capture_logs()`, which works with or without this.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Any

import structlog

LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}
AUDIT_LEVEL = LEVELS["info"]
_LEVEL_ALIASES = {"warn": "warning", "exception": "error", "fatal": "critical", "msg": "info"}


class _Tee:
    """A structlog output logger that sends each line to stderr and to the audit file."""

    def __init__(self, stderr: IO[str], stderr_level: int, audit: IO[str] | None) -> None:
        self._stderr = stderr
        self._stderr_level = stderr_level
        self._audit = audit

    def _emit(self, level: int, message: str) -> None:
        if level >= self._stderr_level:
            self._stderr.write(message + "\n")
            self._stderr.flush()
        if self._audit is not None and level >= AUDIT_LEVEL:
            self._audit.write(message + "\n")
            self._audit.flush()

    def __getattr__(self, method: str) -> Any:
        name = _LEVEL_ALIASES.get(method, method)
        if name not in LEVELS:
            raise AttributeError(method)
        level = LEVELS[name]
        return lambda message: self._emit(level, message)


def configure_logging(
    level: str = "warning",
    *,
    audit_path: str | Path | None = None,
    json: bool = True,
    stderr: IO[str] | None = None,
) -> None:
    """Route every structlog event to stderr at `level` (and the audit file at info)."""
    stderr_level = LEVELS[_LEVEL_ALIASES.get(level, level)]
    audit: IO[str] | None = None
    if audit_path is not None:
        Path(audit_path).parent.mkdir(parents=True, exist_ok=True)
        audit = open(audit_path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - lives as long as the process
    tee = _Tee(stderr or sys.stderr, stderr_level, audit)
    renderer: Any = (
        structlog.processors.JSONRenderer(sort_keys=False)
        if json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            min(stderr_level, AUDIT_LEVEL if audit else stderr_level)
        ),
        logger_factory=lambda *_: tee,
        cache_logger_on_first_use=False,
    )


def get_logger(component: str | None = None, **bound: Any) -> Any:
    """A structlog logger, bound to `component` when given.

    If nothing configured structlog yet, this configures the stderr default first, so a library
    caller that never called `configure_logging` still keeps stdout clean.
    """
    if not structlog.is_configured():
        configure_logging()
    logger = structlog.get_logger()
    if component:
        bound = {"component": component, **bound}
    return logger.bind(**bound) if bound else logger
