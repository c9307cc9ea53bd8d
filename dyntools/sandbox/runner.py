"""One worker process, host side: start it, call it, end it.

Workers start with `subprocess` (vfork + exec, no `preexec_fn`: forking a large parent is
slow) as `sys.executable -I -S -c <bootstrap>`, in a new session (so a timeout can kill the
whole process group), with an empty environment and an empty working directory. The worker
locks itself down; the host only reads its report and holds it to `require_layers` and to
the default minimum (sandbox/minimum.py) before any tool code runs.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from dyntools.base.random_ids import RandomIds
from dyntools.errors import (
    BadResult,
    CapabilityViolation,
    LayerUnavailable,
    LoadError,
    SandboxError,
    SandboxMemoryLimit,
    SandboxTimeout,
    SandboxViolation,
    ToolHttpError,
    ToolRuntimeError,
    UsageError,
    WorkerCrashed,
)
from dyntools.sandbox.minimum import MINIMUM_TEXT, below_minimum_message, missing_for_minimum
from dyntools.sandbox.placement import Placement, gil_watch, others_cpu
from dyntools.sandbox.spec import WorkerSpec
from dyntools.sandbox.worker import protocol
from dyntools.sandbox.zygote import ForkedProcess, Zygote, ZygoteError

_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)
BOOTSTRAP = (
    f"import sys;sys.path.insert(0,{_PACKAGE_ROOT!r});"
    "from dyntools.sandbox.worker.process import main;main()"
)
# Room around the result cap for the envelope and the captured output.
_ENVELOPE_BYTES = 64 * 1024
_CALL_IDS = RandomIds(7)  # 56 random bits per call id
_monotonic = time.monotonic
# A JSON document at the start of a text, and where it ends (json.loads would first guess an
# encoding and skip whitespace on either side).
_decode_json = json.JSONDecoder().raw_decode

_ERRORS: dict[str, type[SandboxError]] = {
    "timeout": SandboxTimeout,
    "memory_limit": SandboxMemoryLimit,
    "runtime_error": ToolRuntimeError,
    "http_error": ToolHttpError,
    "bad_result": BadResult,
    "sandbox_violation": SandboxViolation,
}

_SIGNALS: dict[int, tuple[type[SandboxError], str]] = {
    signal.SIGSYS: (SandboxViolation, "the seccomp filter killed the worker (forbidden system "
                    "call)"),
    signal.SIGXFSZ: (SandboxViolation, "the worker tried to write a file (file size limit 0)"),
    signal.SIGXCPU: (SandboxTimeout, "the worker used up its CPU time limit"),
}


# A worker's process: started as an interpreter of its own, or forked by the zygote.
ChildProcess = subprocess.Popen[bytes] | ForkedProcess

# Answers one capability request frame of a running call: (request, call deadline) -> the
# answer to send back (see dyntools/capabilities/hostcalls.py). Raising ends the call (the
# worker dies).
HostHandler = Callable[[Any, float], dict[str, Any]]
# Told what the tool printed before each of its requests, in order, as the frames arrive.
OutputListener = Callable[[str], None]


class CallOutcome(NamedTuple):
    result: dict[str, Any]
    output: str


class EmptyDirectory:
    """An empty, read-only working directory shared by the workers of one pool."""

    def __init__(self) -> None:
        self.path = tempfile.mkdtemp(prefix="dyntools-sandbox-")
        os.chmod(self.path, 0o500)

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            os.chmod(self.path, 0o700)
            os.rmdir(self.path)


def wait_for_exit(process: ChildProcess, timeout: float) -> int:
    """`process.wait(timeout)` (its exit status, or TimeoutExpired), woken by the kernel the
    moment the process exits: a pidfd becomes readable then, where Popen.wait with a timeout
    sleeps in doubling steps and oversleeps the exit by up to as long again (a cold
    `dyntools call` ends its worker ~1 ms sooner). Without pidfds, Popen.wait itself. A
    worker forked by the zygote is waited for through its own pidfd."""
    if process.returncode is not None:
        return process.returncode
    if isinstance(process, ForkedProcess):
        return process.wait(timeout)
    try:
        # The child is not reaped yet (returncode is None), so its pid is still its own.
        fd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        return process.wait(timeout=timeout)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if not poller.poll(max(0, int(timeout * 1000))):
            raise subprocess.TimeoutExpired(process.args, timeout)
    finally:
        os.close(fd)
    return process.wait(timeout=timeout)  # it has exited: reaped at once


def send_group_kill(process: ChildProcess) -> None:
    """SIGKILL to the process group of a worker that has not been reaped (its own session:
    the worker and anything it started); a zygote child also by its pidfd, since one not yet
    past its setsid is not its own group. Returns at once."""
    if process.returncode is None:
        if isinstance(process, ForkedProcess):
            process.send_kill()
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)


def kill_group(process: ChildProcess) -> None:
    """`send_group_kill`, then wait for the worker to exit and reap it."""
    if process.returncode is None:
        send_group_kill(process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            wait_for_exit(process, 5.0)


class Interpreter:
    """A worker interpreter that has been started but not yet given a tool: started before
    the host parses and transforms the tool (`spec.build_spec`), its start-up (~7 ms) and its
    own imports run while the host works. It receives nothing until `WorkerProcess.start`
    sends the init message.

    With a `zygote` (sandbox/zygote.py) the interpreter is a child forked from it, which has
    the worker's own modules loaded already; where the zygote cannot fork one, it is started
    as its own interpreter."""

    def __init__(self, cwd: str, *, stderr: int | None = None,
                 zygote: Zygote | None = None) -> None:
        self.cwd = cwd
        self.stderr = stderr
        started = time.monotonic()
        self.process: ChildProcess = (self._fork(zygote) if zygote is not None else None) or (
            self._start())
        self._started = started
        self._spawned = time.monotonic()

    def _start(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", BOOTSTRAP],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if self.stderr is None else self.stderr,
            cwd=self.cwd,
            env={},
            start_new_session=True,
            close_fds=True,
        )

    def _fork(self, zygote: Zygote) -> ForkedProcess | None:
        try:
            return zygote.fork(self.cwd, stderr=self.stderr)
        except ZygoteError:
            return None

    @property
    def forked(self) -> bool:
        return isinstance(self.process, ForkedProcess)

    @property
    def spawned(self) -> tuple[float, float]:
        """When the start was asked for, and when the process existed."""
        process = self.process
        if isinstance(process, ForkedProcess) and process.forked is not None:
            return self._started, process.forked
        return self._started, self._spawned

    def settle(self, timeout: float) -> None:
        """Make sure the process exists: a fork the zygote has not answered within `timeout`,
        or refused, is replaced by an interpreter of its own (what was written to the
        fork's pipe meanwhile, a preimport, is lost: the init message repeats it)."""
        process = self.process
        if not isinstance(process, ForkedProcess):
            return
        try:
            if process.resolve(timeout):
                # The CPUs a child of this thread would have had (the zygote's are those
                # of the moment it started).
                with contextlib.suppress(OSError, AttributeError):
                    os.sched_setaffinity(process.pid, os.sched_getaffinity(0))
                return
        except ZygoteError:
            pass
        process.abandon()
        self.process = self._start()
        self._started = self._spawned = time.monotonic()

    def alive(self) -> bool:
        return self.process.poll() is None

    def preimport(self, modules: list[str]) -> None:
        """Have the interpreter import `modules` (the allowed modules its tool will import)
        now, while the host still transforms the tool; the worker imports them again from
        its init message, which then finds them loaded. A failure shows at `start`."""
        if not modules:
            return
        assert self.process.stdin is not None
        data = protocol.frame(marshal.dumps(("preimport", list(modules))))
        if len(data) > select.PIPE_BUF:
            return  # only what one write carries whole (or not at all): never a part frame
        fd = self.process.stdin.fileno()
        os.set_blocking(fd, False)  # as WorkerProcess keeps it: a write never waits
        with contextlib.suppress(OSError):
            os.write(fd, data)

    def kill(self) -> None:
        """Kill its whole process group, reap it and close its pipes."""
        process = self.process
        if isinstance(process, ForkedProcess) and not process.resolve(0.0):
            process.abandon()  # not forked yet: it finds its pipes closed and exits
            return
        kill_group(process)
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()


class WorkerProcess:
    """One started, locked-down worker. Not thread-safe: one caller at a time (the pool
    guarantees it)."""

    def __init__(self, spec: WorkerSpec, cwd: str, *, stderr: int | None = None,
                 interpreter: Interpreter | None = None) -> None:
        """`interpreter`: one started earlier for this cwd and stderr (else one starts now)."""
        self.spec = spec
        self.calls = 0
        self.layers: dict[str, dict[str, Any]] = {}
        self.broken = False
        self.spent = False  # the last call changed module state: never reused
        # The layers of the default minimum missing here, when the spec opted in to run so
        self.below_minimum: tuple[str, ...] = ()
        self._buffer = b""
        self.startup: dict[str, float] = {}
        if interpreter is None:
            interpreter = Interpreter(cwd, stderr=stderr)
        interpreter.settle(spec.limits.startup_timeout_s)
        self.interpreter = interpreter
        self.process = interpreter.process
        assert self.process.stdin is not None and self.process.stdout is not None
        self._write_fd = self.process.stdin.fileno()
        self._read_fd = self.process.stdout.fileno()
        self._poll = select.poll()
        self._poll.register(self._read_fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        # Writes never block: a worker that stops reading (a compromised one, or one whose
        # pipe is full) must not hold the host past the deadline of what it is sent.
        os.set_blocking(self._write_fd, False)
        self._write_poll = select.poll()
        self._write_poll.register(self._write_fd, select.POLLOUT | select.POLLERR)
        # Output travels JSON-escaped as ASCII: up to 6 bytes per byte (a control character).
        limits = self._limits = spec.limits
        self._reply_cap = (limits.max_result_bytes + limits.max_output_bytes * 6
                           + _ENVELOPE_BYTES)
        self._placement: Placement | None = None  # made at the second call (placement.py)
        # The time limit the running exchange is held to, named when it is exceeded.
        self._limit_s = limits.startup_timeout_s

    @property
    def pid(self) -> int:
        return self.process.pid

    def abort_start(self) -> None:
        """End a worker another thread is starting (its pool closes): SIGKILL to its process
        group, nothing more. The starting thread sees the pipe close, fails its `start`, and
        reaps and closes the worker itself (closing its pipes from here could hand their
        file descriptors to another open while that thread still polls them)."""
        send_group_kill(self.process)

    def start(self) -> dict[str, dict[str, Any]]:
        """Send the init message, wait for `hello` (the layer report, written after lockdown
        and before any tool code runs), check it against what the kernel shows in /proc, and
        only then let the worker run the tool's module body. Return the host's view of the
        layers; a required layer that is not active in that view, or a view below the default
        minimum without the spec's opt-in, is a `LayerUnavailable` before any tool code has
        run."""
        self._limit_s = self.spec.limits.startup_timeout_s
        deadline = time.monotonic() + self._limit_s
        try:
            self._send(self.spec.init_message, deadline, starting=True)
            reply = self._receive(deadline, starting=True)
        except SandboxError:
            self.kill()
            raise
        hello = reply.get("hello")
        if not isinstance(hello, dict):
            self.kill()
            raise self._error_from(reply, starting=True)
        reported = hello.get("layers")
        from dyntools.sandbox.kernel_view import verified_layers

        self.layers = verified_layers(self.pid, reported if isinstance(reported, dict) else {})
        missing = sorted(
            name for name in self.spec.require_layers
            if not self.layers.get(name, {}).get("active")
        )
        if missing:
            self.kill()
            raise LayerUnavailable(
                "required sandbox layer(s) not active: " + ", ".join(
                    f"{name} ({self.layers.get(name, {}).get('detail', 'not reported')})"
                    for name in missing
                ),
                missing=missing,
            )
        self._hold_to_minimum()
        marks = hello.get("marks")
        try:
            self._send(marshal.dumps("go"), deadline, starting=True)
            ready = self._receive(deadline, starting=True)
        except SandboxError:
            self.kill()
            raise
        if "ready" not in ready:
            self.kill()
            raise self._error_from(ready, starting=True)
        # Tool code ran before `ready`: nothing in it is trusted but timing marks.
        ready_marks = ready.get("ready")
        if isinstance(marks, dict) and isinstance(ready_marks, dict):
            marks.update({"module_ran": ready_marks.get("module_ran")})
        self._record_startup(marks if isinstance(marks, dict) else {})
        return self.layers

    def _hold_to_minimum(self) -> None:
        """Stop the worker (LayerUnavailable) when its verified layers are below the default
        minimum, unless the spec opted in; an opted-in run below it goes to the audit log."""
        below = missing_for_minimum(self.layers)
        if not below:
            return
        if not self.spec.allow_weaker_sandbox:
            self.kill()
            raise LayerUnavailable(below_minimum_message(self.layers, below),
                                   missing=list(below), minimum=MINIMUM_TEXT)
        self.below_minimum = below
        from dyntools.base.log import get_logger

        get_logger("sandbox").info("sandbox.below_minimum", module=self.spec.module_name,
                                   missing=list(below), minimum=MINIMUM_TEXT,
                                   opt_in="allow_weaker_sandbox")

    def _record_startup(self, marks: dict[str, Any]) -> None:
        """Milliseconds per start-up phase (the worker's clock is the host's monotonic)."""
        spawned = self.interpreter.spawned
        previous = spawned[0]
        phases = {"spawn": spawned[1], "interpreter": marks.get("worker_main")}
        phases.update({k: v for k, v in marks.items() if k != "worker_main"})
        phases["hello_received"] = time.monotonic()
        for name, stamp in phases.items():
            if isinstance(stamp, int | float):
                self.startup[name] = round((stamp - previous) * 1000, 3)
                previous = stamp

    def call(self, params: dict[str, Any], timeout: float | None = None, *,
             host: HostHandler | None = None,
             on_output: OutputListener | None = None) -> CallOutcome:
        """One call. While it runs, the tool may send request frames (sandbox/worker/hostapi.py):
        each is handed to `host` with the call's deadline and its answer sent back; without
        a `host`, or when `host` raises, the worker is killed (a CapabilityViolation from
        `host` is the call's error). `on_output` is told what the tool printed before each
        request, before `host` sees it; the outcome's output (or the error's) holds all of
        it either way."""
        result, output = self.call_result(params, timeout, host=host, on_output=on_output)
        return CallOutcome(result, output)

    def call_result(self, params: dict[str, Any], timeout: float | None = None, *,
                    host: HostHandler | None = None,
                    on_output: OutputListener | None = None) -> tuple[dict[str, Any], str]:
        """`call`, returning (result, captured output) without building a CallOutcome."""
        if self.broken:
            raise WorkerCrashed("this worker was discarded")
        if not isinstance(params, dict):
            raise UsageError(f"params must be a dict, got {type(params).__name__}")
        check_plain_data(params)
        in_flight = gil_watch.enter()
        try:
            return self._exchange(params, timeout, host, in_flight, on_output)
        finally:
            gil_watch.leave()

    def _exchange(self, params: dict[str, Any], timeout: float | None,
                  host: HostHandler | None, in_flight: int,
                  on_output: OutputListener | None) -> tuple[dict[str, Any], str]:
        """Send one call and take its one reply (`call_result`; `in_flight`: calls of this
        process waiting for a reply, this one included)."""
        call_id = self._call_id()
        spin = self._spin_for_call(in_flight)
        # A spinning call beside other Python threads: what they computed meanwhile says
        # whether the spin kept them from the GIL (placement.py).
        watched = others_cpu() if spin and threading.active_count() > 1 else -1.0
        began = _monotonic()
        try:
            payload = marshal.dumps((call_id, params, spin))
        except ValueError as exc:
            raise UsageError(f"params are not plain data: {exc}") from exc
        if len(payload) > self._limits.max_params_bytes:
            raise UsageError(f"params are {len(payload)} bytes, over the cap of "
                             f"{self._limits.max_params_bytes}")
        self.calls += 1
        self._limit_s = timeout if timeout is not None else self._limits.timeout_s
        deadline = time.monotonic() + self._limit_s
        # Until a whole reply is back, the worker is out of step with the protocol: anything
        # that interrupts this call (KeyboardInterrupt included) leaves it marked broken.
        self.broken = True
        data = len(payload).to_bytes(protocol.HEADER_BYTES, "big") + payload  # protocol.frame
        try:
            written = os.write(self._write_fd, data)  # a small frame goes at once
        except BlockingIOError:
            written = 0
        except OSError:  # BrokenPipeError included
            raise self._died() from None
        if written < len(data):
            self._write_by(memoryview(data)[written:], deadline)
        printed: list[str] = []  # what came with request frames (sandbox/worker/hostapi.py)
        while True:
            reply = self._receive(deadline, spin_s=spin)
            if reply.get("id") != call_id or self._buffer:
                self.kill()
                raise SandboxViolation(
                    "the worker sent a frame that is not the one reply to this call; it was "
                    "discarded", expected_id=call_id)
            request = reply.get("request", _MISSING)
            if request is _MISSING:
                break
            if "out" in reply:
                self._printed(reply["out"], printed, on_output)
            self._answer(request, host, deadline)
        self.broken = False
        if watched >= 0.0:
            gil_watch.judge(others_cpu() - watched, _monotonic() - began)
        ok = reply.get("ok", _MISSING)
        if ok is not _MISSING:
            if not isinstance(ok, dict):
                self.kill()
                raise BadResult("the worker returned a result that is not a JSON object")
            if reply.get("spent"):
                # The call changed the tool's module state: the worker ends after this
                # reply and is never handed another call (see sandbox/worker/state.py).
                self.spent = True
            out = reply.get("out", "")
            return ok, (out if type(out) is str else str(out)) if not printed else \
                "".join(printed) + str(out)
        raise self._failed(reply, printed)

    def _failed(self, reply: dict[str, Any], printed: list[str]) -> SandboxError:
        """The error a call's error reply stands for (the worker killed unless the tool's
        own failure left it usable); its output holds what came with requests too."""
        error = self._error_from(reply)
        if printed:
            error.details["output"] = "".join(printed) + str(error.details.get("output", ""))
        if reply.get("fatal") or not isinstance(error, ToolRuntimeError | BadResult):
            self.kill()
        return error

    def _printed(self, out: Any, printed: list[str], on_output: OutputListener | None) -> None:
        """What the tool printed before a request (sandbox/worker/hostapi.py), kept for the
        call's output and told to `on_output`; a listener that fails ends the call. The
        worker stops a tool that prints past its cap (in UTF-8 bytes, at least as many as
        characters): more than that over the call is a worker that ignored its own cap."""
        if not out:
            return
        text = out if type(out) is str else str(out)
        if sum(map(len, printed)) + len(text) > self._limits.max_output_bytes:
            self.kill()
            raise BadResult(f"the worker sent more output than its cap of "
                            f"{self._limits.max_output_bytes} bytes; it was killed")
        printed.append(text)
        if on_output is not None:
            try:
                on_output(text)
            except BaseException:
                self.kill()
                raise

    def _spin_for_call(self, in_flight: int) -> float:
        """How long both sides may poll during this call (placement.py), with `in_flight`
        calls of this process waiting for a reply. A one-shot call (the CLI's) never pays
        for placement: ctypes, sched_setaffinity."""
        placement = self._placement
        if placement is None:
            if not self.calls:
                return 0.0
            placement = self._placement = Placement(self.pid)
        return placement.spin(in_flight)

    def _call_id(self) -> int:
        """An id the worker cannot predict (56 fresh random bits, from a batch that stays in
        this process): a frame sent ahead of time, or a second reply, never passes for the
        answer to a later call."""
        return _CALL_IDS.number()

    def _answer(self, request: Any, host: HostHandler | None, deadline: float) -> None:
        """Hand one request frame to `host` and send its answer; any failure kills."""
        if host is None:
            self.kill()
            raise CapabilityViolation(
                "the tool asked the host for a capability, but this call grants none (no "
                "capability policy, or the tool declares no CAPABILITIES)")
        try:
            answer = host(request, deadline)
            payload = marshal.dumps(answer)
        except BaseException:
            self.kill()
            raise
        if len(payload) > self.spec.limits.max_host_answer_bytes:
            self.kill()
            raise BadResult(f"the host's answer to a capability request is {len(payload)} "
                            f"bytes, over the cap of {self.spec.limits.max_host_answer_bytes}")
        self._send(payload, deadline)

    # -- pipes -------------------------------------------------------------------------------

    def _send(self, payload: bytes, deadline: float, *, starting: bool = False) -> None:
        """Write one frame by `deadline`: a worker that does not read it in time is killed
        (a blocking write would wait for as long as the worker chose not to read)."""
        self._write_by(memoryview(protocol.frame(payload)), deadline, starting=starting)

    def _write_by(self, data: memoryview, deadline: float, *, starting: bool = False) -> None:
        while data:
            try:
                data = data[os.write(self._write_fd, data):]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise self._died() from None
            self._wait(self._write_poll, deadline,
                       "start" if starting else "read what the host sent it")

    def _wait(self, poll: select.poll, deadline: float, what: str) -> bool:
        """Poll until the pipe is ready (True) or the poll ends early (False: look again);
        past `deadline` the worker is killed, for not doing `what` in time."""
        remaining = deadline - time.monotonic()
        if remaining > 0 and poll.poll(max(1, int(remaining * 1000) + 1)):
            return True
        if time.monotonic() < deadline:
            return False
        self.kill()
        raise SandboxTimeout(f"the worker did not {what} within the time limit "
                             f"({self._limit_s:g} s); it was killed", timeout_s=self._limit_s)

    def _receive(self, deadline: float, *, starting: bool = False,
                 spin_s: float = 0.0) -> dict[str, Any]:
        """The next frame, parsed. With `spin_s`, poll for it without sleeping for up to
        that long first (see placement.py)."""
        cap = self._reply_cap
        buffer = self._buffer
        ready = False  # the spin saw the pipe readable: read without polling again
        if spin_s and not buffer:  # self._spin, inlined (it runs on every warm call)
            poll = self._poll.poll
            until = _monotonic() + spin_s
            while not poll(0):
                if _monotonic() >= until:
                    break
            else:
                ready = True
        while True:
            have = len(buffer)
            if have >= protocol.HEADER_BYTES:
                size = int.from_bytes(buffer[:protocol.HEADER_BYTES], "big")
                if size > cap:
                    self.kill()
                    raise BadResult(f"the worker sent {size} bytes, over the cap of {cap}")
                end = protocol.HEADER_BYTES + size
                if have >= end:
                    payload = buffer[protocol.HEADER_BYTES:end]
                    self._buffer = buffer[end:]
                    break
                want = end - have
            else:
                want = protocol.HEADER_BYTES - have
            if not ready and not self._wait(self._poll, deadline,
                                            "start" if starting else "finish"):
                continue
            ready = False
            chunk = os.read(self._read_fd, max(65536, want))
            if not chunk:
                raise self._died()
            buffer = self._buffer = buffer + chunk
        try:  # self._parse's usual case, inlined; anything else goes through it
            text = payload.decode("ascii")
            parsed, end = _decode_json(text)
        except (ValueError, RecursionError):  # UnicodeDecodeError, JSONDecodeError included
            text, parsed, end = "", None, -1
        reply: dict[str, Any] = (parsed if end == len(text) and type(parsed) is dict
                                 else self._parse(payload))
        if b"\\u" in payload and (b"\\ud" in payload or b"\\uD" in payload):
            return self._without_surrogates(reply)
        return reply

    def _without_surrogates(self, reply: dict[str, Any]) -> dict[str, Any]:
        """JSON escapes can spell a lone surrogate, which no UTF-8 writer accepts: passed on,
        one such string made the MCP server's stdout writer raise and end the whole server.
        A result is refused; diagnostics keep the code point as text."""
        if not _has_lone_surrogate(reply):
            return reply
        if _has_lone_surrogate(reply.get("ok")):
            self.kill()
            raise BadResult("the result holds a lone surrogate (\\ud800-\\udfff), which "
                            "is not Unicode text")
        try:
            return {key: value if key == "ok" else _scrub_surrogates(value)
                    for key, value in reply.items()}
        except RecursionError:
            self.kill()
            raise BadResult("the worker sent a reply nested too deeply") from None

    def _parse(self, payload: bytes) -> dict[str, Any]:
        """One reply: a JSON object in ASCII text (the worker escapes everything else), the
        whole payload and nothing around it."""
        try:
            text = payload.decode("ascii")
            reply, end = _decode_json(text)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            self.kill()
            raise BadResult(f"the worker sent a reply that is not JSON: {exc}") from None
        if end != len(text):
            self.kill()
            raise BadResult("the worker sent a reply that is not JSON: extra data after the "
                            "object")
        if type(reply) is not dict:
            self.kill()
            raise BadResult("the worker sent a reply that is not a JSON object")
        return reply

    def _error_from(self, reply: dict[str, Any], *, starting: bool = False) -> SandboxError:
        reason = str(reply.get("error", "worker_crashed"))
        message = str(reply.get("message", "the worker failed"))
        details: dict[str, Any] = {"output": str(reply.get("out", ""))}
        if reply.get("trace"):
            details["trace"] = reply["trace"]
        if reason == "compile_error":
            return LoadError(message, path=self.spec.source_path)  # type: ignore[return-value]
        cls = _ERRORS.get(reason, WorkerCrashed)
        return cls(message, **details)

    def _died(self) -> SandboxError:
        """The worker closed its pipe: find out why from its exit status."""
        self.broken = True
        code: int | None
        try:
            code = wait_for_exit(self.process, 2.0)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.process.returncode
        if code is not None and code < 0:
            cls, text = _SIGNALS.get(-code, (WorkerCrashed, ""))
            if not text:
                text = f"the worker died from signal {signal.Signals(-code).name}"
            return cls(text, signal=-code)
        return WorkerCrashed(f"the worker exited unexpectedly with status {code}", status=code)

    # -- ending -------------------------------------------------------------------------------

    def kill(self) -> None:
        """Kill the worker's whole process group and reap it."""
        self.broken = True
        kill_group(self.process)
        self._close_pipes()

    def stop(self) -> None:
        """Ask an idle worker to end (EOF on its input), then make sure it did."""
        self.broken = True
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
            wait_for_exit(self.process, 0.5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def _close_pipes(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


_MISSING = object()
_SCALARS = frozenset({str, int, float, bool, type(None), bytes})


def check_plain_data(params: dict[str, Any]) -> None:
    """Params must be JSON-shaped data (dict, list, tuple, str, int, float, bool, None,
    bytes): marshal would also carry code objects, and the worker's guards rely on params
    holding nothing else. And a tree, as JSON is: a container met twice (a cycle, which
    this walk would follow for ever, or one shared by two places, which can multiply the
    work of every walk after this one) is refused."""
    stack: list[Any] = [params]
    seen: set[int] = set()
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is dict or kind is list or kind is tuple:
            if not value:  # nothing inside (and the empty tuple is one shared object)
                continue
            if id(value) in seen:
                raise UsageError(f"params must be a tree of JSON data: one {kind.__name__} "
                                 "appears twice in them (a cycle, or one container shared "
                                 "by two places)")
            seen.add(id(value))
            if kind is dict:
                for key in value:
                    if type(key) not in _SCALARS:
                        raise UsageError(f"params keys must be strings or numbers, not "
                                         f"{type(key).__name__}")
                stack.extend(value.values())
            else:
                stack.extend(value)
        elif kind not in _SCALARS:
            raise UsageError(f"params may hold only JSON data, not {kind.__name__}")


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _scrub_surrogates(value: Any) -> Any:
    """A copy whose strings spell lone surrogates as escapes (only for small error replies)."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_scrub_surrogates(k): _scrub_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_surrogates(item) for item in value]
    return value
