"""Ctrl-C and SIGTERM: one clean exit (130, 143), never a half-written registry.

The CLI installs `install()` once. The first SIGINT or SIGTERM raises `Interrupted` (a
KeyboardInterrupt, so asyncio and the SDKs unwind as they do for Ctrl-C) in the main thread;
later ones are ignored while the process cleans up, so a second Ctrl-C cannot turn an orderly
exit into a traceback, and a clean-up that takes longer than CLEANUP_LIMIT_S ends the process
with the same code all the same. A signal that arrives once the command has returned
(`finishing`) lets the exit finish; a second one ends a stuck exit. Inside `critical()` (the
registry's commit of a version file and its manifest) the signal is held and raised when the
section ends: a commit is all or nothing. `install()` starts one daemon helper thread, which
sends a signal again and bounds the clean-up: a signal handler starts no thread of its own.

Without `install()` (a library caller), `critical()` changes nothing.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import threading
import time
from types import FrameType
from typing import Any

SIGINT, SIGTERM = int(signal.SIGINT), int(signal.SIGTERM)
SIGNAL_NAMES = {SIGINT: "SIGINT", SIGTERM: "SIGTERM"}
EXIT_CODES = {SIGINT: 128 + SIGINT, SIGTERM: 128 + SIGTERM}


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; `exit_code` is 128 + the signal number."""

    def __init__(self, signum: int) -> None:
        super().__init__(SIGNAL_NAMES.get(signum, f"signal {signum}"))
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class _State:
    installed = False
    main_ident: int | None = None  # the thread install() ran in: Python's main thread
    depth = 0
    held: int | None = None
    raised: int | None = None
    finishing = False  # the command has returned: the process is only exiting now
    late: int | None = None
    ending = False  # the bounded exit after a signal is counting (_exit_within)
    bound_s = 0.0  # how long it counts
    previous_hook: Any = None  # sys.unraisablehook before install()
    helper: queue.SimpleQueue[tuple[float, str, int]] | None = None  # see `_later`


_state = _State()


def _swallows(frame: FrameType | None) -> bool:
    """Whether an exception raised in `frame` would be printed as "Exception ignored" and
    dropped: it runs in a finaliser, or in the weakref callback the import system runs when a
    module lock goes away (after every import; a signal lands there now and then)."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or (
                code.co_name == "cb" and code.co_filename.startswith("<frozen importlib")):
            return True
        frame = frame.f_back
    return False


# How soon a signal that arrived where it could not be raised is sent again.
REDELIVER_AFTER_S = 0.005


def _later(seconds: float, action: str, value: int) -> None:
    """Have the helper thread `action` ("send": the signal `value` again; "end": the process
    with the code `value`) `seconds` from now. Safe in a signal handler: the helper thread was
    started by install(), and SimpleQueue.put is reentrant (it may interrupt another put in
    this thread) and takes no lock another Python frame could hold; a thread started here
    could wait for ever on threading's own lock, held by the code the signal interrupted."""
    helper = _state.helper
    if helper is not None:
        helper.put((time.monotonic() + seconds, action, value))


def _helper(requests: queue.SimpleQueue[tuple[float, str, int]]) -> None:
    """The helper thread: runs each request of `_later` when it is due. It runs apart from
    the main thread, so a clean-up stuck there (in Python or in C that lets go of the GIL)
    still ends in bounded time."""
    due: list[tuple[float, str, int]] = []
    while True:
        wait = None if not due else max(0.0, min(due)[0] - time.monotonic())
        with contextlib.suppress(queue.Empty):
            due.append(requests.get(timeout=wait))
        now = time.monotonic()
        for item in sorted(item for item in due if item[0] <= now):
            due.remove(item)
            _, action, value = item
            if action == "end":
                _end(value)
            else:
                os.kill(os.getpid(), value)


def _handler(signum: int, frame: FrameType | None) -> None:
    if _state.finishing:
        # The command is done and its exit code chosen; raising now would interrupt the
        # interpreter's own shutdown (atexit joins, the audit flush) with a traceback. The
        # first late signal lets the exit finish; a second one ends a stuck exit at once.
        if _state.late is not None:
            os._exit(128 + signum)
        _state.late = signum
        return
    if _state.raised is not None:
        return  # already unwinding from the first signal
    if _state.depth > 0:
        _state.held = signum if _state.held is None else _state.held
        return
    if _swallows(frame):
        # Raised here, the interrupt would be lost (and printed as a traceback): the signal
        # is sent again a moment later, from another thread (sent from here, it would be
        # handled at once, here again), until it lands where it can be raised; all within
        # the same bounded time as any clean-up.
        _exit_within(CLEANUP_LIMIT_S, signum)
        _later(REDELIVER_AFTER_S, "send", signum)
        return
    _state.raised = signum
    _exit_within(CLEANUP_LIMIT_S, signum)
    raise Interrupted(signum)


# How long the clean-up after a signal may take (closing pools, flushing the audit log)
# before the process ends anyway: an interrupt always ends the command in bounded time.
CLEANUP_LIMIT_S = 15.0


def _exit_within(seconds: float, signum: int) -> None:
    if _state.ending:
        return  # one bound per process: the first signal's
    _state.ending = True
    _state.bound_s = seconds
    _later(seconds, "end", 128 + signum)


def _end(code: int) -> None:
    """The clean-up is stuck: say so (the line the CLI would have printed, and why it ends
    here), straight to the file descriptor, since sys.stderr may be held by the main thread,
    and end the process with the signal's code."""
    name = SIGNAL_NAMES.get(code - 128, f"signal {code - 128}")
    with contextlib.suppress(OSError):
        os.write(2, f"dyntools: interrupted ({name}); the clean-up did not finish within "
                    f"{_state.bound_s:g} s\n".encode())
    os._exit(code)


def _lost(unraisable: Any) -> None:
    """sys.unraisablehook: an `Interrupted` raised where Python cannot raise it (a weakref
    callback, a finaliser `_swallows` does not know, a generator closed by the collector) is
    printed as "Exception ignored" and dropped. It is taken back and its signal sent again,
    as the handler does for the places it knows; anything else goes to the previous hook."""
    exc = unraisable.exc_value
    if isinstance(exc, Interrupted) and _state.raised == exc.signum and not _state.finishing:
        _state.raised = None
        _later(REDELIVER_AFTER_S, "send", exc.signum)
        return
    _state.previous_hook(unraisable)


def install() -> None:
    """Route SIGINT and SIGTERM to `Interrupted` (main thread only; a no-op elsewhere)."""
    import sys

    if threading.current_thread() is not threading.main_thread():
        return  # only Python's main thread may set handlers
    # The helper thread first: a signal that lands while Thread.start() waits for it to
    # run would raise out of install() itself, before anyone is there to catch it.
    if _state.helper is None:
        helper: queue.SimpleQueue[tuple[float, str, int]] = queue.SimpleQueue()
        threading.Thread(target=_helper, args=(helper,), name="dyntools-interrupts",
                         daemon=True).start()
        _state.helper = helper
    try:
        for signum in EXIT_CODES:
            signal.signal(signum, _handler)
    except ValueError:  # not the main interpreter's main thread
        return
    _state.installed = True
    _state.main_ident = threading.get_ident()
    if sys.unraisablehook is not _lost:
        _state.previous_hook = sys.unraisablehook
        sys.unraisablehook = _lost


def finishing() -> None:
    """The command has returned (or is raising its exit): later signals no longer interrupt
    anything but a stuck exit."""
    _state.finishing = True


def raised_signal() -> int | None:
    """The signal being handled, once `Interrupted` was raised."""
    return _state.raised


def exit_code_for(exc: KeyboardInterrupt) -> int:
    if isinstance(exc, Interrupted):
        return exc.exit_code
    return 128 + SIGINT


class critical:  # lower case: a function to its callers (`with critical():`)
    """Hold SIGINT/SIGTERM until the block ends (main thread, when installed)."""

    __slots__ = ("holding",)

    def __enter__(self) -> None:
        self.holding = _state.installed and threading.get_ident() == _state.main_ident
        if self.holding:
            _state.depth += 1

    def __exit__(self, *exc_info: object) -> None:
        if not self.holding:
            return
        _state.depth -= 1
        if _state.depth == 0 and _state.held is not None and _state.raised is None:
            signum, _state.held = _state.held, None
            _state.raised = signum
            _exit_within(CLEANUP_LIMIT_S, signum)
            raise Interrupted(signum)
