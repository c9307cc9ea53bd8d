"""Ctrl-C and SIGTERM: one clean exit (130, 143), never a half-written registry.

The CLI installs `install()` once. The first SIGINT or SIGTERM raises `Interrupted` (a
KeyboardInterrupt, so asyncio and the SDKs unwind as they do for Ctrl-C) in the main thread;
later ones are ignored while the process cleans up, so a second Ctrl-C cannot turn an orderly
exit into a traceback, and a clean-up that takes longer than CLEANUP_LIMIT_S ends the process
with the same code all the same. A signal that arrives once the command has returned
(`finishing`) lets the exit finish; a second one ends a stuck exit. Inside `critical()` (the
registry's commit of a version file and its manifest) the signal is held and raised when the
section ends: a commit is all or nothing.

Without `install()` (a library caller), `critical()` changes nothing.
"""

from __future__ import annotations

import _signal
import _thread
import os
import time
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

# `_signal`, the C module under `signal`: importing `signal` builds its enums of every signal
# and handler (~3 ms of each start-up), and only these two numbers are needed here.
SIGINT, SIGTERM = int(_signal.SIGINT), int(_signal.SIGTERM)
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
    previous_hook: Any = None  # sys.unraisablehook before install()


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


def _send_again(signum: int) -> None:
    time.sleep(REDELIVER_AFTER_S)
    os.kill(os.getpid(), signum)


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
        _thread.start_new_thread(_send_again, (signum,))
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
    # A bare thread (never joined at exit, like a daemon): importing `threading` here, inside
    # a signal handler, could meet a half-imported module, and at the top it would cost
    # every start-up its import.
    _thread.start_new_thread(_end_after, (seconds, 128 + signum))


def _end_after(seconds: float, code: int) -> None:
    time.sleep(seconds)
    # The clean-up is stuck: say so (the line the CLI would have printed, and why it ends
    # here), straight to the file descriptor, since sys.stderr may be held by the main thread.
    name = SIGNAL_NAMES.get(code - 128, f"signal {code - 128}")
    try:  # noqa: SIM105 (contextlib.suppress: a check never imports contextlib)
        os.write(2, f"dyntools: interrupted ({name}); the clean-up did not finish within "
                    f"{seconds:g} s\n".encode())
    except OSError:
        pass
    os._exit(code)


def _lost(unraisable: Any) -> None:
    """sys.unraisablehook: an `Interrupted` raised where Python cannot raise it (a weakref
    callback, a finaliser `_swallows` does not know, a generator closed by the collector) is
    printed as "Exception ignored" and dropped. It is taken back and its signal sent again,
    as the handler does for the places it knows; anything else goes to the previous hook."""
    exc = unraisable.exc_value
    if isinstance(exc, Interrupted) and _state.raised == exc.signum and not _state.finishing:
        _state.raised = None
        _thread.start_new_thread(_send_again, (exc.signum,))
        return
    _state.previous_hook(unraisable)


def install() -> None:
    """Route SIGINT and SIGTERM to `Interrupted` (main thread only; a no-op elsewhere)."""
    import sys

    try:
        for signum in EXIT_CODES:
            _signal.signal(signum, _handler)
    except ValueError:  # not Python's main thread: only that one may set handlers
        return
    _state.installed = True
    _state.main_ident = _thread.get_ident()
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
    """Hold SIGINT/SIGTERM until the block ends (main thread, when installed). A class, not
    contextlib.contextmanager: a check never imports contextlib (docs/gate.md)."""

    __slots__ = ("holding",)

    def __enter__(self) -> None:
        self.holding = _state.installed and _thread.get_ident() == _state.main_ident
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
