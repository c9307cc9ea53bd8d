"""Connecting to a Ray cluster: within a deadline, never starting one unasked, and with Ray's
own words when it fails.

    connect(ray, address_for(None), options, connect_timeout(None))   # "auto", 10 s

Ray's `init` retries an address it cannot reach for as long as it likes (over ten minutes
for a cluster that is gone, or whose state in /tmp/ray is stale), and without an address it
starts a throwaway local cluster (~17 s) when none is running. So an address of None means
"auto" here (a running cluster: RAY_ADDRESS, else the one this machine's Ray state names, else
a clear error at once), "local" starts one on purpose, and `init` runs in a thread this
module waits on for `connect_timeout` seconds (DYNTOOLS_RAY_CONNECT_TIMEOUT, default 10).

What Ray says meanwhile goes to the process's stderr from its C++ core, not to Python: it is
captured at the file-descriptor level while `init` runs, and its last messages become the
error's cause ("Failed to connect to GCS at address ... within 5 seconds", or an
`AuthenticationError`'s own text when the cluster wants a token). On success the captured
lines are logged as one `executor.ray_said` warning rather than lost. A connection that timed
out leaves Ray retrying in its thread until the process ends (Ray offers no way to stop it):
while it does, a later connect is refused at once with the same cause, never a second
`init` beside it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import IO, Any

from dyntools.base.log import get_logger
from dyntools.errors import ExecutorUnavailable, UsageError

AUTO = "auto"  # connect to a running cluster; never start one
LOCAL = "local"  # start a throwaway local cluster for this process
CONNECT_TIMEOUT_ENV = "DYNTOOLS_RAY_CONNECT_TIMEOUT"
DEFAULT_CONNECT_TIMEOUT_S = 10.0
MAX_CAUSE_CHARS = 600

# Ray's C++ log prefix (`[2026-01-01 00:00:00,000 W 123 456] rpc_client.h:153: `) and its
# Python one (`2026-01-01 00:00:00,000\tWARNING worker.py:1681 -- `).
_CPP_PREFIX = re.compile(r"^\[[^\]]*\] [\w./-]+:\d+: ")
_PY_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d [\d:,]+\s+[A-Z]+ [\w./-]+:\d+ -- ")
# Ray 2.60's default token authentication, refused.
_TOKEN = re.compile(r"InvalidAuthToken|Unauthenticated|[Aa]uthentication token")
# What a connect from a thread always says: not a cause.
_NOISE = ("SIGTERM handler is not set",)


def address_for(address: str | None) -> str:
    """The address `ray.init` is given: `address`, else "auto" (never Ray's own default,
    which starts a cluster when it finds none)."""
    return address.strip() if address and address.strip() else AUTO


def connect_timeout(value: float | None = None) -> float:
    """`value`, else DYNTOOLS_RAY_CONNECT_TIMEOUT, else the default; a positive number of
    seconds (UsageError otherwise)."""
    text = str(value) if value is not None else os.environ.get(CONNECT_TIMEOUT_ENV, "")
    if not text.strip():
        return DEFAULT_CONNECT_TIMEOUT_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 3600:
        source = "the Ray connect timeout" if value is not None else CONNECT_TIMEOUT_ENV
        raise UsageError(f"{source} must be a number of seconds above 0 and at most 3600, "
                         f"got {text!r}")
    return seconds


class _Pending:
    """The connect that timed out and is still retrying in its thread, with its error."""

    thread: threading.Thread | None = None
    error: ExecutorUnavailable | None = None


_pending = _Pending()
_connecting = threading.Lock()


def connect(ray: Any, address: str, options: dict[str, Any], timeout_s: float) -> None:
    """`ray.init(address=address, **options)` within `timeout_s`; ExecutorUnavailable with
    Ray's own cause otherwise."""
    with _connecting:
        if _pending.thread is not None and _pending.thread.is_alive():
            assert _pending.error is not None
            raise ExecutorUnavailable(_pending.error.message, **_pending.error.details)
        try:
            _connect(ray, address, options, timeout_s)
        except ExecutorUnavailable as exc:
            if exc.details.get("still_trying"):
                _pending.error = exc
            raise


def _connect(ray: Any, address: str, options: dict[str, Any], timeout_s: float) -> None:
    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            ray.init(address=address, **options)
            outcome.append(None)
        except BaseException as exc:  # reported by the waiting thread
            outcome.append(exc)

    shown = address if address not in (AUTO, LOCAL) else f"{address} (address {address!r})"
    with _stderr_captured() as captured:
        thread = threading.Thread(target=attempt, daemon=True, name="dyntools-ray-connect")
        thread.start()
        thread.join(timeout_s)
        said = ray_messages(captured())
    if thread.is_alive():
        _pending.thread = thread
        cause = "; ".join(said[-2:]) or "no answer, and Ray said nothing more"
        why = ("the cluster uses token authentication and this process has no token for it: "
               "make the cluster's token available as RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or "
               "~/.ray/auth_token" if _TOKEN.search(cause) else
               "the cluster is gone, unreachable from here, or this machine's Ray state is "
               "stale")
        raise ExecutorUnavailable(
            f"cannot connect to the Ray cluster at {shown} within {timeout_s:g} s (Ray keeps "
            f"retrying: {why}); Ray said: {cause[:MAX_CAUSE_CHARS]}. Set the deadline with "
            f"--ray-connect-timeout or {CONNECT_TIMEOUT_ENV}; --ray-address local starts a "
            "cluster for this command", address=address, timeout_s=timeout_s,
            ray_said=said[-5:], still_trying=True)
    error = outcome[0] if outcome else None
    if error is not None:
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise error
        cause = f"{type(error).__name__}: {error}"
        hint = (" (no cluster is running: `ray start --head` starts one, or --ray-address "
                "local starts one for this command)"
                if address == AUTO and isinstance(error, ConnectionError) else "")
        raise ExecutorUnavailable(
            f"cannot connect to the Ray cluster at {shown}: {cause[:MAX_CAUSE_CHARS]}{hint}",
            address=address, ray_said=said[-5:]) from error
    if said:
        get_logger("executor").warning("executor.ray_said", address=address, lines=said[-5:])


def ray_messages(text: str) -> list[str]:
    """Ray's log lines without their prefixes (and without what every threaded connect says),
    each once, in order."""
    found: list[str] = []
    for line in text.splitlines():
        message = _PY_PREFIX.sub("", _CPP_PREFIX.sub("", line.strip()))
        if message and not any(noise in message for noise in _NOISE) and message not in found:
            found.append(message)
    return found


@contextlib.contextmanager
def _stderr_captured() -> Iterator[Any]:
    """File descriptor 2 into a temporary file while the block runs (Ray's C++ core writes
    there directly); yields a function that returns what was written so far. Where fd 2
    cannot be redirected (no such descriptor), nothing is captured."""
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:
        yield lambda: ""
        return
    sink: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed below
    try:
        os.dup2(sink.fileno(), 2)

        def read() -> str:
            sink.flush()
            sink.seek(0)
            return sink.read().decode("utf-8", "replace")

        yield read
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        sink.close()
