"""Workers forked from a zygote (host side); see dyntools/sandbox/worker/zygote.py.

One zygote serves the whole host process: it is started with the first worker this process
needs (or earlier, by `prestart`), exec'd fresh like a worker (`python -I -S`, an empty
environment, a session of its own), and it forks a child per worker on request. A child is a
worker like any other from its first instruction on: the host creates its pipes, sends it its
init message, checks its layer report against /proc, kills its process group on a time limit.
What changes is who its parent is: the zygote, which reaps a child only when the host asks
(`ForkedProcess` does once it has seen the child exit through a pidfd), so the child's pid and
process group id stay reserved while the host may still signal them.

Where forking is not possible (no pidfd, no SCM_RIGHTS, the zygote could not start or has
died), workers are started as before, one interpreter each. `DYNTOOLS_ZYGOTE=0` turns the
zygote off for a process (each worker then starts its own interpreter).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket

ENV_ZYGOTE = "DYNTOOLS_ZYGOTE"
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)
BOOTSTRAP = (
    f"import sys;sys.path.insert(0,{_PACKAGE_ROOT!r});"
    "from dyntools.sandbox.worker.zygote import main;main()"
)
# The exit status a child of a zygote that died is given: its real status went to a parent
# that no longer exists (init reaped it).
UNKNOWN_STATUS = 255
_REPLY_BYTES = 4096


class ZygoteError(OSError):
    """The zygote could not fork a worker (it is gone, or it refused)."""


def enabled(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """Whether workers of this process are forked from a zygote: Linux with pidfds and
    SCM_RIGHTS, unless DYNTOOLS_ZYGOTE=0."""
    value = (os.environ if environ is None else environ).get(ENV_ZYGOTE, "1")
    if value.strip() == "0" or not sys.platform.startswith("linux"):
        return False
    import socket  # here: a process that never forks a worker does not load it

    return (hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")
            and hasattr(socket, "SOCK_SEQPACKET"))


class Zygote:
    """One zygote process and its control channel. Thread-safe: each request carries its
    own reply socket, and a request is one datagram."""

    def __init__(self) -> None:
        import socket

        host_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", BOOTSTRAP],
                stdin=zygote_end.fileno(), stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd="/", env={}, start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            host_end.close()
            raise
        finally:
            zygote_end.close()
        self._control = host_end
        self.owner = os.getpid()
        self.forks = 0

    def alive(self) -> bool:
        return self.process.poll() is None

    def fork(self, cwd: str, *, stderr: int | None = None) -> ForkedProcess:
        """Ask for a worker child in `cwd`, its stderr `stderr` (default /dev/null). Returns
        at once: the pid arrives when the zygote has forked (`ForkedProcess.pid`)."""
        import socket

        to_child, to_host = os.pipe2(os.O_CLOEXEC), os.pipe2(os.O_CLOEXEC)
        reply, reply_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC) if stderr is None else -1
        try:
            socket.send_fds(self._control, [b"F" + os.fsencode(cwd)],
                            [reply_theirs.fileno(), to_child[0], to_host[1],
                             null if stderr is None else stderr])
        except OSError as exc:
            reply.close()
            for fd in (*to_child, *to_host):
                os.close(fd)
            raise ZygoteError(f"the zygote did not take the request: {exc}") from exc
        finally:
            reply_theirs.close()
            if null >= 0:
                os.close(null)
        os.close(to_child[0])
        os.close(to_host[1])
        self.forks += 1
        return ForkedProcess(self, reply, to_child[1], to_host[0])

    def reap(self, pid: int, timeout: float = 2.0) -> int | None:
        """The exit status (as `Popen.returncode` gives it) of a child that has exited, once
        the zygote has reaped it; None when it has not exited yet. UNKNOWN_STATUS when the
        zygote cannot say (it is gone)."""
        import socket

        reply, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            try:
                socket.send_fds(self._control, [b"R" + pid.to_bytes(8, "big")],
                                [theirs.fileno()])
            finally:
                theirs.close()
            if not select.select([reply], [], [], timeout)[0]:
                return UNKNOWN_STATUS
            answer = reply.recv(64)
        except OSError:
            return UNKNOWN_STATUS
        finally:
            reply.close()
        if answer[:1] == b"N":
            return None
        if answer[:1] != b"R" or len(answer) != 9:
            return UNKNOWN_STATUS
        return os.waitstatus_to_exitcode(int.from_bytes(answer[1:], "big", signed=True))

    def close(self) -> None:
        """End the zygote: it kills every child it has not reaped and exits."""
        with contextlib.suppress(OSError):
            self._control.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5.0)
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def forget(self) -> None:
        """In a process forked from the one that started this zygote: let go of the inherited
        control channel without ending the zygote, which belongs to the parent."""
        with contextlib.suppress(OSError):
            os.close(self._control.detach())


class RawPipe:
    """The end of a pipe as WorkerProcess uses Popen's: `fileno()` and `close()`."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def fileno(self) -> int:
        if self._fd < 0:
            raise ValueError("I/O operation on closed pipe")
        return self._fd

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    @property
    def closed(self) -> bool:
        return self._fd < 0


class ForkedProcess:
    """A worker forked by the zygote, with the parts of `subprocess.Popen` the sandbox uses:
    `pid`, `stdin`, `stdout`, `args`, `returncode`, `poll()`, `wait(timeout)`. Its exit is
    seen through a pidfd; its status comes from the zygote, which reaps it then."""

    def __init__(self, zygote: Zygote, reply: socket.socket, stdin: int, stdout: int) -> None:
        self._zygote = zygote
        self._reply: socket.socket | None = reply
        self.stdin = RawPipe(stdin)
        self.stdout = RawPipe(stdout)
        self.args: list[str] = ["dyntools-zygote-child"]
        self.returncode: int | None = None
        self.requested = time.monotonic()
        self.forked: float | None = None
        self._pid: int | None = None
        self._pidfd = -1
        self._lock = threading.Lock()

    # -- the fork's answer --------------------------------------------------------------------

    def resolve(self, timeout: float) -> bool:
        """Wait up to `timeout` for the zygote's answer; True once the child exists. A
        refusal, or a zygote that is gone, is a ZygoteError."""
        import socket

        with self._lock:
            reply = self._reply
            if reply is None:
                return self._pid is not None
            if not select.select([reply], [], [], max(0.0, timeout))[0]:
                return False
            try:
                data, fds, _, _ = socket.recv_fds(reply, _REPLY_BYTES, 1)
            except OSError as exc:
                data, fds = b"E" + str(exc).encode(), []
            finally:
                reply.close()
                self._reply = None
            if data[:1] != b"F" or len(data) != 9 or len(fds) != 1:
                for fd in fds:
                    os.close(fd)
                self.returncode = UNKNOWN_STATUS
                self._close_pipes()
                why = data[1:].decode("utf-8", "replace") if data[:1] == b"E" else (
                    "no answer" if not data else "a malformed answer")
                raise ZygoteError(f"the zygote did not fork a worker: {why}")
            self._pid = int.from_bytes(data[1:], "big")
            self._pidfd = fds[0]
            self.forked = time.monotonic()
            return True

    @property
    def pid(self) -> int:
        if self._pid is None and not self.resolve(30.0):
            raise ZygoteError("the zygote did not answer within 30 s")
        assert self._pid is not None
        return self._pid

    # -- Popen's part -------------------------------------------------------------------------

    def poll(self) -> int | None:
        if self.returncode is not None:
            return self.returncode
        if self._pid is None and not self.resolve(0.0):
            return None
        if select.select([self._pidfd], [], [], 0)[0]:
            self._reaped()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is not None:
            return self.returncode
        deadline = None if timeout is None else time.monotonic() + timeout
        self.pid  # noqa: B018 (waits for the fork)
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not select.select([self._pidfd], [], [], remaining)[0]:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        self._reaped()
        assert self.returncode is not None
        return self.returncode

    def send_kill(self) -> None:
        """SIGKILL to the child's process group (its own session: the child and anything
        it started). Its pid cannot have been reused: it is not reaped before `wait`."""
        if self.returncode is not None or self._pid is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def _reaped(self) -> None:
        """The child has exited (its pidfd is readable): ask the zygote for its status."""
        with self._lock:
            if self.returncode is not None:
                return
            status = self._zygote.reap(self._pid) if self._pid is not None else None
            if status is None:  # exited by the pidfd, not yet by waitpid: ask once more
                time.sleep(0.001)
                status = self._zygote.reap(self._pid) if self._pid is not None else None
            self.returncode = UNKNOWN_STATUS if status is None else status
            if self._pidfd >= 0:
                os.close(self._pidfd)
                self._pidfd = -1

    def abandon(self) -> None:
        """Give up on a fork that has not been answered (or was refused): its pipes and its
        reply socket close, so a child forked later finds end of file on its input and
        exits, and the zygote, whose answer no one takes, reaps it itself."""
        with self._lock:
            if self._reply is not None:
                self._reply.close()
                self._reply = None
            if self._pid is None and self.returncode is None:
                self.returncode = UNKNOWN_STATUS
        self._close_pipes()

    def _close_pipes(self) -> None:
        self.stdin.close()
        self.stdout.close()


class _Shared:
    """This process's zygote (at most one), and whether starting one failed here."""

    def __init__(self) -> None:
        self.exit_hook = False
        self.reset()

    def reset(self) -> None:
        self.lock = threading.Lock()
        self.zygote: Zygote | None = None
        self.failed: BaseException | None = None  # a failed start is not retried


_state = _Shared()


def shared() -> Zygote | None:
    """This process's zygote, started if need be; None where forking from one is not
    possible here (workers then start their own interpreters)."""
    if not enabled():
        return None
    state = _state
    with state.lock:
        zygote = state.zygote
        if zygote is not None and zygote.owner == os.getpid() and zygote.alive():
            return zygote
        if state.failed is not None:
            return None
        # None yet, or it died: start one (a dead one's children end with their pipes)
        try:
            zygote = state.zygote = Zygote()
        except OSError as exc:
            state.zygote, state.failed = None, exc
            return None
        if not state.exit_hook:
            state.exit_hook = True
            atexit.register(_end)
        return zygote


def _end() -> None:
    state = _state
    with state.lock:
        zygote, state.zygote = state.zygote, None
    if zygote is not None and zygote.owner == os.getpid():
        zygote.close()


def _after_fork_in_child() -> None:
    """A process forked from the host (multiprocessing, say) starts a zygote of its own if
    it needs one; the parent's stays the parent's. (The lock is new: another thread may
    have held the parent's at the fork.)"""
    old = _state.zygote
    if old is not None:
        old.forget()
    _state.reset()


os.register_at_fork(after_in_child=_after_fork_in_child)
