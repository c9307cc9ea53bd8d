"""The zygote: an interpreter that has imported the worker's own modules and forks workers.

Starting a worker interpreter costs an interpreter start and the worker's imports (10-20 ms of
CPU); forking one from a process that already has them costs about a millisecond. The host
starts one zygote per host process (`dyntools/sandbox/zygote.py`), exec'd fresh as a worker is
(`python -I -S`, an empty environment, never forked from the host, whose threads and memory
it must not inherit), with fd 0 a Unix SEQPACKET socket to the host, its control channel, and
fds 1 and 2 on /dev/null.

What it is and is not:

- It runs dyntools' own code only. It imports exactly what every worker imports before its
  init message (`process._preload`) and nothing of any tool; it never receives a tool's code,
  a call's params or any secret: those go from the host straight into each child's own pipes,
  which the zygote passes on without reading.
- It is single-threaded (it checks, before every fork) and waits for one request at a time.
- A child becomes a worker exactly as a fresh interpreter does: it starts a session of its
  own (its process group is the one the host kills on a time limit), closes the control
  channel and every other descriptor it inherited but its three pipes, moves to its pool's
  empty working directory, and then runs `process.main`: it reads its init message, imports
  what the tool needs, applies every layer itself and reports them, like any worker.
- Its children share its address-space layout (the addresses of the interpreter, the C
  library and the heap at fork time, and CPython's string hash secret): a tool that learns an
  address in its own worker learns it for every worker this zygote forks, the price of not
  paying an interpreter start per worker (docs/sandbox.md, "The zygote").

Requests (one datagram each; the reply goes to a socket passed with the request, so that
requests from several host threads never share a reply channel):

- `F` + working directory (UTF-8), with four descriptors: the reply socket, then the child's
  stdin, stdout and stderr. The reply is `F` + the child's pid (8 bytes) with a pidfd for it,
  or `E` + a message.
- `R` + pid (8 bytes), with the reply socket: reap that child if it has exited. The reply is
  `R` + its wait status (8 bytes, signed), or `N` when it has not exited yet. A child is
  reaped only when the host asks, so its pid (and its process group id) cannot be reused
  while the host may still signal it.

End of file on the control channel ends the zygote: it kills the process group of every child
it has not reaped, reaps them and exits.
"""

from __future__ import annotations

import _socket
import _thread
import posix
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

CONTROL_FD = 0
MAX_REQUEST_BYTES = 4096
MAX_FDS = 4
FD_BYTES = 4  # an int, as SCM_RIGHTS carries descriptors
SIGKILL = 9


def _receive(control: _socket.socket) -> tuple[bytes, list[int]]:
    """One request and the descriptors passed with it. A request whose descriptors did not
    all arrive (the control data was truncated) is refused after closing what did."""
    data, ancillary, flags, _ = control.recvmsg(
        MAX_REQUEST_BYTES, _socket.CMSG_SPACE(MAX_FDS * FD_BYTES))
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % FD_BYTES
            fds += [int.from_bytes(payload[at:at + FD_BYTES], sys.byteorder)
                    for at in range(0, usable, FD_BYTES)]
    if flags & (_socket.MSG_CTRUNC | _socket.MSG_TRUNC):
        for fd in fds:
            posix.close(fd)
        return b"?", []  # answered by nothing: the host sees its reply socket close
    return data, fds


def _send(reply_fd: int, data: bytes, fds: tuple[int, ...] = ()) -> bool:
    """Answer on a request's reply socket (then closed); False when the host has stopped
    waiting for the answer (it closed its end)."""
    reply = _socket.socket(fileno=reply_fd)
    try:
        if fds:
            payload = b"".join(fd.to_bytes(FD_BYTES, sys.byteorder) for fd in fds)
            reply.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, payload)])
        else:
            reply.sendmsg([data])
    except OSError:
        return False
    finally:
        reply.close()
    return True


def _become_worker(control: _socket.socket, fds: list[int], cwd: str) -> NoReturn:
    """In the child: a session of its own, only its three pipes, its pool's directory; then
    the worker's own start (process.main), as in a freshly started interpreter."""
    try:
        posix.setsid()
        control.detach()  # its descriptor is closed below; the object must never close it
        reply, stdin, stdout, stderr = fds
        for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
            posix.dup2(fd, target)
        # fd 0 was the control channel: replaced above; everything else the zygote held goes
        posix.closerange(3, posix.sysconf("SC_OPEN_MAX"))
        del reply, stdin, stdout, stderr
        posix.chdir(cwd)
        from dyntools.sandbox.worker import process

        process.main()
    finally:
        posix._exit(2)


def _fork(control: _socket.socket, data: bytes, fds: list[int],
          children: set[int], orphans: set[int]) -> None:
    if len(fds) != MAX_FDS:
        for fd in fds:
            posix.close(fd)
        return  # not a request the host sends: no reply socket to answer on
    reply_fd = fds[0]
    try:
        cwd = data[1:].decode("utf-8")
        if _thread._count():  # forking a threaded process copies one thread of several
            raise OSError("the zygote has a thread")
        pid = posix.fork()
    except (OSError, UnicodeDecodeError) as exc:
        for fd in fds[1:]:
            posix.close(fd)
        _send(reply_fd, b"E" + str(exc).encode("utf-8", "replace"))
        return
    if pid == 0:
        _become_worker(control, fds, cwd)
    children.add(pid)
    for fd in fds[1:]:
        posix.close(fd)
    answered = False
    try:
        pidfd = posix.pidfd_open(pid)  # the child is not reaped: its pid is still its own
    except OSError:
        posix.close(reply_fd)
    else:
        try:
            answered = _send(reply_fd, b"F" + pid.to_bytes(8, "big"), (pidfd,))
        finally:
            posix.close(pidfd)
    if not answered:
        # No one will ask for this child: it is killed, and reaped by the zygote itself.
        _kill(pid)
        orphans.add(pid)


def _reap(data: bytes, fds: list[int], children: set[int]) -> None:
    if len(fds) != 1 or len(data) != 9:
        for fd in fds:
            posix.close(fd)
        return
    pid = int.from_bytes(data[1:], "big")
    answer = b"N"
    if pid in children:
        try:
            done, status = posix.waitpid(pid, posix.WNOHANG)
        except ChildProcessError:
            done, status = pid, 255 << 8
        if done == pid:
            children.discard(pid)
            answer = b"R" + status.to_bytes(8, "big", signed=True)
    _send(fds[0], answer)


def _kill(pid: int) -> None:
    try:  # noqa: SIM105 (contextlib costs a worker start-up time)
        posix.killpg(pid, SIGKILL)
    except OSError:
        pass  # it has exited, and its group with it


def _reap_orphans(children: set[int], orphans: set[int]) -> None:
    for pid in list(orphans):
        try:
            done, _ = posix.waitpid(pid, posix.WNOHANG)
        except ChildProcessError:
            done = pid
        if done == pid:
            orphans.discard(pid)
            children.discard(pid)


def _end(children: set[int]) -> None:
    for pid in children:
        _kill(pid)
    for pid in children:
        try:  # noqa: SIM105 (as above)
            posix.waitpid(pid, 0)
        except ChildProcessError:
            pass


def main() -> None:
    from dyntools.sandbox.worker import process

    process._preload()
    control = _socket.socket(fileno=CONTROL_FD)
    children: set[int] = set()
    orphans: set[int] = set()  # children whose pid the host never received
    try:
        while True:
            if orphans:
                _reap_orphans(children, orphans)
            try:
                data, fds = _receive(control)
            except InterruptedError:
                continue
            if not data:
                break  # end of file: the host has gone
            if data[:1] == b"F":
                _fork(control, data, fds, children, orphans)
            elif data[:1] == b"R":
                _reap(data, fds, children)
            else:
                for fd in fds:
                    posix.close(fd)
    finally:
        _end(children)
    posix._exit(0)
