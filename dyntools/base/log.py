"""dyntools' logging: JSON lines or text on stderr, and optionally an audit file.

stdout belongs to CLI results and to the MCP stdio protocol, so nothing here writes to stdout.
The audit file (normally `<registry>/audit.log`) always receives info and above, whatever the
stderr level, so a quiet terminal never means a thin audit trail.

    configure_logging("warning", audit_path=registry / "audit.log")
    log = get_logger("pipeline")
    log.info("station", station="gate", tool="slugify_text", outcome="accepted", ms=0.4)

Nothing here changes the host application's logging: `configure_logging` sets up dyntools'
own outputs and never calls `structlog.configure`, and `get_logger` configures nothing. Where
an event goes is decided when it is logged:

1. while `structlog.testing.capture_logs()` is active, to structlog (tests read events so);
2. after `configure_logging`, to its stderr stream and audit file;
3. otherwise, if the host configured structlog, to structlog as the host configured it;
4. otherwise to stderr at warning and above, as `wants_json` chooses (a library caller's
   stdout stays clean).

structlog itself is imported only when it has a say: when the host (or a test) has imported it
(cases 1 and 3 cannot arise otherwise), or to format an exception.
A command that logs nothing, or only JSON lines, never pays for structlog (and what it pulls
in: asyncio, rich).

On stderr an event is a JSON line, or with `json=False` a line a person reads (logtext.py);
with `json=None` the choice is `set_log_format` (the CLI's `--log-format`), else
DYNTOOLS_LOG_FORMAT (`text` or `json`), else text when the stream is a terminal and JSON
when it is not (a script, a pipe, a log collector).

The audit file is JSON lines whatever stderr gets, written through a queue: an event costs the
caller an append (no JSON, no system call; values are rendered later, so log values you do not
change afterwards). A background thread renders, writes and flushes within `FLUSH_INTERVAL_S`;
so do `flush_logs()`, exit, SIGTERM (the handler, installed only when an audit file is
configured, flushes and then does what the previous handler did: ends the process by the
signal, or calls the host's handler), and a further `configure_logging` call, which closes the
previous file (no handle leaks).
"""

from __future__ import annotations

import atexit
import contextlib
import json as _json
import os
import signal
import sys
import threading
import time
from collections import deque
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import IO, Any

from dyntools.base.regular_files import open_append_regular

LOG_FORMAT_ENV = "DYNTOOLS_LOG_FORMAT"
LOG_FORMATS = ("text", "json")
LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}
AUDIT_LEVEL = LEVELS["info"]
FLUSH_INTERVAL_S = 0.2
_LEVEL_ALIASES = {"warn": "warning", "exception": "error", "fatal": "critical", "msg": "info"}
_UTC = UTC
_ENCODER = _json.JSONEncoder(default=repr)  # built once: json.dumps(default=) builds one a call


class _AuditWriter:
    """An append-only file fed through a queue: the caller only appends the event (rendering
    and the system call happen later, in one batch), and a daemon thread renders, writes and
    flushes within FLUSH_INTERVAL_S of an event; flush() and close() do it at once."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # Never through a symlink, never waiting on a FIFO: see open_append_regular.
        fd = open_append_regular(path)
        self._file: IO[str] | None = os.fdopen(fd, "a", encoding="utf-8", buffering=1 << 16)
        # Items are rendered lines (str) or (event_dict, unix time) still to render.
        self._queue: deque[Any] = deque()
        self._lock = threading.RLock()  # RLock: the SIGTERM handler may run inside flush()
        self._dirty = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None

    def add(self, item: Any) -> None:
        self._queue.append(item)
        if not self._dirty.is_set():
            self._dirty.set()
            if self._thread is None:
                self._start_flusher()

    def _start_flusher(self) -> None:
        with self._lock:
            if self._thread is not None or self._closed:
                return
            self._thread = threading.Thread(target=self._flush_loop, daemon=True,
                                            name="dyntools-audit-flush")
            self._thread.start()

    def _flush_loop(self) -> None:
        while not self._closed:
            self._dirty.wait()
            if self._closed:
                return
            # Let events gather for a moment, then write them in one system call.
            time.sleep(FLUSH_INTERVAL_S)
            self._dirty.clear()
            self.flush()

    def flush(self) -> None:
        with self._lock:
            file = self._file
            if file is None:
                return
            queue = self._queue
            try:
                while queue:
                    item = queue.popleft()
                    if type(item) is not str:
                        event_dict, stamp = item
                        event_dict["timestamp"] = _timestamp(stamp)
                        item = _ENCODER.encode(event_dict) + "\n"
                    file.write(item)
                file.flush()
            except (OSError, ValueError, RuntimeError):
                pass  # a full disk must not break the caller; the next flush retries

    def close(self) -> None:
        with self._lock:
            self.flush()
            self._closed = True
            file, self._file = self._file, None
        self._dirty.set()  # wakes the flusher, which sees _closed and ends
        if file is not None:
            with contextlib.suppress(OSError, ValueError):
                file.close()


def _timestamp(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, _UTC).isoformat().replace("+00:00", "Z")


class _Outputs:
    """What `configure_logging` set up: where events go and how they are rendered."""

    def __init__(self, stderr: IO[str] | None, stderr_level: int,
                 audit: _AuditWriter | None, json: bool | None) -> None:
        self.stderr = stderr  # None: sys.stderr at the time of the event
        self.stderr_level = stderr_level
        self.audit = audit
        self.min_level = min(stderr_level, AUDIT_LEVEL) if audit is not None else stderr_level
        self.json = json  # None: wants_json(the stream), asked at the event

    def emit(self, level: int, name: str, event_dict: dict[str, Any]) -> None:
        event_dict["level"] = name
        if "exc_info" in event_dict:  # the exception exists only now: format it now
            from structlog.processors import format_exc_info

            event_dict = dict(format_exc_info(None, name, event_dict))
        if level >= self.stderr_level:
            event_dict["timestamp"] = _timestamp(time.time())
            stream = self.stderr if self.stderr is not None else sys.stderr
            as_json = self.json if self.json is not None else wants_json(stream)
            encoded = _ENCODER.encode(event_dict) if as_json or self.audit is not None else ""
            if as_json:
                stream.write(encoded + "\n")
            else:
                from dyntools.base.logtext import render_text

                # On a terminal a live line may be half drawn (ensure's running station,
                # rewritten in place): clear it, so the event starts at the first column.
                lead = "\r\x1b[K" if _on_a_terminal(stream) else ""
                stream.write(lead + render_text(name, event_dict) + "\n")
            stream.flush()
            if self.audit is not None:
                self.audit.add(encoded + "\n")
        elif self.audit is not None and level >= AUDIT_LEVEL:
            # Rendered by the flusher: the caller pays for an append, not for JSON.
            self.audit.add((event_dict, time.time()))


# Unconfigured (a library whose host set up nothing): warnings on stderr, as a person reads
# them on a terminal, as JSON lines anywhere else.
_DEFAULT = _Outputs(None, LEVELS["warning"], None, None)


class _State:
    configured: _Outputs | None = None  # set by configure_logging
    log_format: str | None = None  # set by set_log_format (the CLI's --log-format)
    previous_sigterm: Any = None
    sigterm_installed = False


_state = _State()
_config_lock = threading.Lock()


def set_log_format(log_format: str | None) -> None:
    """`text` or `json` for every later `configure_logging(json=None)` (None: choose again
    from DYNTOOLS_LOG_FORMAT and the stream)."""
    if log_format is not None and log_format not in LOG_FORMATS:
        raise ValueError(f"a log format is one of {', '.join(LOG_FORMATS)}, got {log_format!r}")
    _state.log_format = log_format


def _on_a_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def wants_json(stream: IO[str]) -> bool:
    """JSON lines on `stream`? `set_log_format`'s choice, else DYNTOOLS_LOG_FORMAT (text or
    json; anything else is ignored), else text on a terminal and JSON otherwise."""
    chosen = _state.log_format or os.environ.get(LOG_FORMAT_ENV, "").strip().lower()
    if chosen in LOG_FORMATS:
        return chosen == "json"
    try:
        return not stream.isatty()
    except (AttributeError, ValueError, OSError):  # a closed or odd stream: for a program
        return True


def configure_logging(
    level: str = "warning",
    *,
    audit_path: str | Path | None = None,
    json: bool | None = True,
    stderr: IO[str] | None = None,
) -> None:
    """Send dyntools' events to stderr at `level` (and the audit file at info and above).

    `json`: JSON lines (True), text for a person (False), or chosen as `wants_json` says
    (None). Changes nothing outside dyntools: structlog's configuration and the standard
    `logging` module are left as the host set them. Calling it again replaces the outputs and
    closes the previous audit file.
    """
    stderr_level = LEVELS[_LEVEL_ALIASES.get(level, level)]
    stream = stderr or sys.stderr
    audit = _AuditWriter(Path(audit_path)) if audit_path is not None else None
    outputs = _Outputs(stream, stderr_level, audit, json)
    with _config_lock:
        previous, _state.configured = _state.configured, outputs
    if previous is not None and previous.audit is not None:
        previous.audit.close()
    if audit is not None:
        _install_sigterm_flush()


def flush_logs() -> None:
    """Write out buffered audit events now (also done within FLUSH_INTERVAL_S, at exit and
    on SIGTERM)."""
    outputs = _state.configured
    if outputs is not None and outputs.audit is not None:
        outputs.audit.flush()


def _close_at_exit() -> None:
    outputs = _state.configured
    if outputs is not None and outputs.audit is not None:
        outputs.audit.close()


atexit.register(_close_at_exit)


def _install_sigterm_flush() -> None:
    """Flush the audit file on SIGTERM, then do what the previous handler did. Only from the
    main thread, and never over SIG_IGN (a host that ignores SIGTERM keeps ignoring it)."""
    if _state.sigterm_installed or threading.current_thread() is not threading.main_thread():
        return
    try:
        previous = signal.getsignal(signal.SIGTERM)
    except (ValueError, OSError):
        return
    if previous is signal.SIG_IGN or previous is None:
        return
    _state.previous_sigterm = previous
    try:
        signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):
        return
    _state.sigterm_installed = True


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    flush_logs()
    previous = _state.previous_sigterm
    if callable(previous):
        previous(signum, frame)
        return
    # The default action: end the process by the signal, as if no handler had been there.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def _structlog() -> Any:
    """structlog if this process has imported it (the host, a test), else None: without it
    nothing can be captured, configured or bound in its context variables."""
    return sys.modules.get("structlog")


def _capturing(structlog: Any) -> bool:
    testing = sys.modules.get("structlog.testing")
    if testing is None:
        return False  # capture_logs lives there: nothing is capturing
    processors = structlog.get_config()["processors"]
    return bool(processors) and type(processors[-1]) is testing.LogCapture


class _Logger:
    """A bound logger (structlog's interface: bind, new, unbind, info, warning, ...) whose
    events go where the module docstring says, decided per event."""

    __slots__ = ("_context",)

    def __init__(self, context: dict[str, Any]) -> None:
        self._context = context

    def bind(self, **values: Any) -> _Logger:
        return _Logger({**self._context, **values})

    def new(self, **values: Any) -> _Logger:
        return _Logger(dict(values))

    def unbind(self, *keys: str) -> _Logger:
        context = dict(self._context)
        for key in keys:
            del context[key]
        return _Logger(context)

    def try_unbind(self, *keys: str) -> _Logger:
        return _Logger({k: v for k, v in self._context.items() if k not in keys})

    def _log(self, method: str, event: Any, values: dict[str, Any]) -> None:
        outputs = _state.configured
        structlog = _structlog()
        if structlog is not None and (
            _capturing(structlog) or (outputs is None and structlog.is_configured())
        ):
            bound = structlog.get_logger()
            if self._context:
                bound = bound.bind(**self._context)
            getattr(bound, method)(event, **values)
            return
        if outputs is None:
            outputs = _DEFAULT
        name = _LEVEL_ALIASES.get(method, method)
        level = LEVELS[name]
        if level < outputs.min_level:
            return
        if method == "exception":
            values.setdefault("exc_info", True)
        bound_vars = sys.modules.get("structlog.contextvars")
        contextvars = bound_vars.get_contextvars() if bound_vars is not None else None
        event_dict = ({**contextvars, **self._context, **values} if contextvars
                      else {**self._context, **values})
        event_dict["event"] = event
        outputs.emit(level, name, event_dict)

    def debug(self, event: Any = None, **values: Any) -> None:
        self._log("debug", event, values)

    def info(self, event: Any = None, **values: Any) -> None:
        self._log("info", event, values)

    def msg(self, event: Any = None, **values: Any) -> None:
        self._log("msg", event, values)

    def warning(self, event: Any = None, **values: Any) -> None:
        self._log("warning", event, values)

    def warn(self, event: Any = None, **values: Any) -> None:
        self._log("warn", event, values)

    def error(self, event: Any = None, **values: Any) -> None:
        self._log("error", event, values)

    def exception(self, event: Any = None, **values: Any) -> None:
        self._log("exception", event, values)

    def critical(self, event: Any = None, **values: Any) -> None:
        self._log("critical", event, values)

    def fatal(self, event: Any = None, **values: Any) -> None:
        self._log("fatal", event, values)


def get_logger(component: str | None = None, **bound: Any) -> Any:
    """A logger bound to `component` when given. Configures nothing."""
    if component:
        bound = {"component": component, **bound}
    return _Logger(bound)
