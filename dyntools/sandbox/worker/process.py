"""The worker: the child process that runs one approved tool version (`python -m ...worker`).

The host starts it as `python -I -S -c <bootstrap>` with an empty environment, an empty working
directory and pipes on fds 0 and 1. The worker:

1. moves the protocol pipes to fresh fds and points fds 0 and 1 at /dev/null, so nothing the
   tool or a C library writes can corrupt the protocol (the tool's `print` is captured in
   memory, size-capped);
2. reads the init message (marshal): the transformed syntax tree, the allow-list data it needs
   (modules and members, builtins, denied attributes, escape routes), limits, the paths
   Landlock may read and the seccomp program;
3. imports the tool's allowed modules, builds the guards, compiles the tree;
4. locks itself down (`layers.lock_down`) and sends `hello` with the layer report, before any
   tool code runs; the host checks the report against /proc and answers "go" (or kills the
   worker when a required layer is missing); the worker then runs the module body and sends
   `ready`;
5. serves calls: a marshal frame with the params in, a JSON frame with the result out. A
   call's window stays open until nothing of the call is left (`Worker.answer`): finalizers
   of its objects run as its code, before the state check and the reply.

It imports nothing from the rest of dyntools but `dyntools.sandbox` modules, and nothing that
is slow to import: its start-up is the cold-call budget.
"""

from __future__ import annotations

import _json
import _thread
import gc
import marshal
import posix
import sys
import time

from dyntools.sandbox.worker import protocol
from dyntools.sandbox.worker.state import NotWalked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

EXIT_STOPPED = 70  # the worker ended a call on purpose (violation, output cap, memory)
# capability stubs (sandbox/worker/hostapi.py), given only to tools importing it
HOST_MODULE = "host"
MAX_MESSAGE_CHARS = 2000
MAX_TRACE_LINE_CHARS = 200
TRACE_ENDS = 10
# posix.times() counts in clock ticks (1/100 s here); two ticks of rounding, to be safe.
CPU_TICK_SLACK_S = 0.02
MAX_SPIN_S = 0.001  # the longest the worker polls for the next call before it blocks
# Garbage collections at the end of a call: finalizers may make new garbage, which the next
# one collects; garbage still found by the last one makes the worker spent.
MAX_COLLECTIONS = 3

_encode_str = _json.encode_basestring_ascii
_monotonic = time.monotonic
_thread_count = _thread._count
_collect = gc.collect


def _refuse_default(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


_encode_json = _json.make_encoder(
    {}, _refuse_default, _encode_str, None, ":", ",", False, False, False
)


class Channel:
    """The protocol pipes. Every frame sent while a call is open starts with that call's id
    (`{"id":N,...}`), so the host can tell a reply to this call from any other frame."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        import select  # an extension module: imported before lockdown, like everything

        self.read_fd = read_fd
        self.write_fd = write_fd
        self.opening = "{"  # '{"id":N,' while call N is open
        self.readable = select.poll()
        self.readable.register(read_fd, select.POLLIN | select.POLLHUP | select.POLLERR)

    def open_call(self, call_id: int) -> None:
        self.opening = '{"id":' + str(call_id) + ","

    def close_call(self) -> None:
        self.opening = "{"

    def send_text(self, text: str) -> None:
        payload = text.encode("ascii")
        data = len(payload).to_bytes(protocol.HEADER_BYTES, "big") + payload  # protocol.frame
        written = posix.write(self.write_fd, data)
        while written < len(data):
            written += posix.write(self.write_fd, data[written:])

    def receive(self, max_bytes: int, spin_s: float = 0.0) -> Any:
        """One frame; a small one arrives in a single read() (one system call, not two).
        With `spin_s`, wait for it by polling for up to that long before blocking (see
        `spin_until_readable`)."""
        if spin_s > 0.0:
            self.spin_until_readable(spin_s)
        chunk = posix.read(self.read_fd, 65536)
        if len(chunk) < protocol.HEADER_BYTES:
            if not chunk:
                raise EOFError("the host closed the pipe")
            chunk += protocol.read_exact(posix.read, self.read_fd,
                                         protocol.HEADER_BYTES - len(chunk))
        size = int.from_bytes(chunk[:protocol.HEADER_BYTES], "big")
        if size > max_bytes:
            raise ValueError(f"frame of {size} bytes exceeds the cap of {max_bytes}")
        end = protocol.HEADER_BYTES + size
        if len(chunk) < end:
            chunk += protocol.read_exact(posix.read, self.read_fd, end - len(chunk))
        # The host never sends a second frame before the answer to the first.
        return marshal.loads(chunk[protocol.HEADER_BYTES:end])

    def spin_until_readable(self, spin_s: float) -> None:
        """Poll without sleeping for up to `spin_s` (capped at MAX_SPIN_S), then return
        either way. The host asks for it only while this worker runs on another CPU than the
        caller: a sleeping CPU of this VM takes tens of microseconds to wake, more than a
        whole warm call (bench/exec.py measures both ways)."""
        poll = self.readable.poll
        if poll(0):
            return
        end = _monotonic() + min(spin_s, MAX_SPIN_S)
        while not poll(0):
            if _monotonic() >= end:
                return

    def send_error(self, reason: str, message: str, *, fatal: bool = False,
                   trace: list[list[Any]] | None = None, output: str = "") -> None:
        parts = [
            self.opening, '"error":', _encode_str(reason),
            ',"message":', _encode_str(message[:MAX_MESSAGE_CHARS]),
            ',"fatal":', "true" if fatal else "false",
            ',"out":', _encode_str(output),
        ]
        if trace:
            parts += [',"trace":', "".join(_encode_json(trace, 0))]
        parts.append("}")
        self.send_text("".join(parts))


def _take_protocol_fds() -> Channel:
    read_fd = posix.dup(0)
    write_fd = posix.dup(1)
    null = posix.open("/dev/null", posix.O_RDWR)
    posix.dup2(null, 0)
    posix.dup2(null, 1)
    posix.close(null)
    return Channel(read_fd, write_fd)


def _tool_trace(exc: BaseException, filename: str, lines: list[str]) -> list[list[Any]]:
    """(line, function, source) for each traceback entry inside the tool file; for a deep
    recursion, the first and the last entries only."""
    trace: list[list[Any]] = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename:
            lineno = tb.tb_lineno
            text = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
            trace.append([lineno, code.co_name, text[:MAX_TRACE_LINE_CHARS]])
        tb = tb.tb_next
    if len(trace) > 2 * TRACE_ENDS:
        skipped = len(trace) - 2 * TRACE_ENDS
        trace = [*trace[:TRACE_ENDS], [0, f"... {skipped} more ...", ""], *trace[-TRACE_ENDS:]]
    return trace


def _describe(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not take the worker down
        text = ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Worker:
    def __init__(self, channel: Channel, init: dict[str, Any]) -> None:
        from dyntools.sandbox.worker.guards import Guards, ModuleView, safe_builtins

        self.channel = channel
        self.filename: str = init["filename"]
        self.lines: list[str] = init["lines"]
        self.max_result_bytes: int = init["max_result_bytes"]
        self.max_params_bytes: int = init["max_params_bytes"]
        self.cpu_seconds: int = init["cpu_seconds"]
        self.cpu_lifetime: int = init["cpu_lifetime"]
        self.skip: frozenset[str] = frozenset(init["skip"])
        for name in init["modules"]:
            if name == HOST_MODULE:
                continue  # dyntools' own stubs, made below: not a module on any path
            try:  # noqa: SIM105 (contextlib costs the worker start-up time)
                __import__(name)
            except ImportError:
                pass  # absent on this Python: the import guard will refuse it
        replacements = self._harden() if "restricted" not in self.skip else {}
        escapes = []
        for module_name, member in init["escapes"]:
            module = sys.modules.get(module_name)
            value = getattr(module, member, None) if module is not None else None
            if value is not None:
                escapes.append((f"{module_name}.{member}", value))
        self.guards = Guards(
            stop=self.stop,
            denied_attributes=init["denied_attributes"],
            denied_prefixes=init["denied_prefixes"],
            escape_objects=escapes,
            max_output_bytes=init["max_output_bytes"],
            denied_modules=init["denied_modules"],
            real_import=__import__,
        )
        # The worker's own objects a tool may hold (its print, the import guard, the hardened
        # copy members, the host stubs): the state check understands them as they are.
        own_objects: list[Any] = [value for members in replacements.values()
                                  for value in members.values()]
        for name, members in init["modules"].items():
            module = self._host_module(init) if name == HOST_MODULE else sys.modules.get(name)
            if module is not None:
                self.guards.add_module(name, module, members, replacements.get(name))
                if name == HOST_MODULE:
                    own_objects += vars(module).values()
                for member, attributes in init["instance_attributes"].get(name, {}).items():
                    kind = getattr(module, member, None)
                    if isinstance(kind, type):
                        self.guards.limit_instances(kind, attributes)
        self.builtins = safe_builtins(init["builtins"], self.guards)
        own_objects += self.builtins.values()
        self.module_view_type = ModuleView
        self.tripwire: Any = None
        self.served = False  # a call was answered (output made later is no call's)
        from dyntools.sandbox.worker.caches import LibraryCaches

        self.library_caches = LibraryCaches()
        # The names the worker put into the tool's globals before its module body ran, and
        # the objects under them (`tool_globals`).
        self.own_names: dict[str, Any] = {}
        # Imported now: once Landlock is on, the worker can import nothing more of its own.
        from dyntools.sandbox.worker.state import ModuleState

        # Until the module body has run and been walked, every call would be spent.
        self.state: Any = NotWalked()
        self.module_state: Callable[[dict[str, Any]], ModuleState] = (
            lambda namespace: ModuleState(
                namespace, own=self.own_names, own_objects=own_objects,
                members=[v for view in self.guards.views.values() for v in vars(view).values()],
                module_view_type=ModuleView, clear_tool_caches=True))
        for kind in self._worker_types():
            self.guards.forbid_type(kind)

    def _host_module(self, init: dict[str, Any]) -> Any:
        """The `host` module: stubs that ask the host over this worker's channel."""
        from dyntools.sandbox.worker import hostapi

        return hostapi.build(self.channel, lambda value: "".join(_encode_json(value, 0)),
                             init["max_host_answer_bytes"], take_output=self.printed_so_far)

    def printed_so_far(self) -> str:
        """What the tool printed since the last request frame, for the next one. The count
        against the output cap is not reset: the cap holds for the whole call."""
        output = self.guards.output
        if not output:
            return ""
        text = "".join(output)
        output.clear()
        return text

    def _harden(self) -> dict[str, dict[str, Any]]:
        """Make the allowed modules safe before any view of them exists (see `hardening`);
        return the members a view gets in place of the module's own."""
        from dyntools.sandbox.worker.hardening import DataCopier, refuse_string_annotations

        typing = sys.modules.get("typing")
        if typing is not None:
            refuse_string_annotations(typing)
        copy, deepcopy = DataCopier().functions()
        return {"copy": {"copy": copy, "deepcopy": deepcopy}}

    def _worker_types(self) -> list[type]:
        from dyntools.sandbox.worker.audit import AuditTripwire
        from dyntools.sandbox.worker.guards import Guards, refused_library_kinds

        return [Worker, Channel, Guards, AuditTripwire, *refused_library_kinds()]

    def stop(self, reason: str, message: str) -> NoReturn:
        """End the call now: report on the protocol pipe and exit, uncatchable by the tool."""
        try:
            self.channel.send_error(reason, message, fatal=True,
                                    output=self.guards.take_output())
        finally:
            posix._exit(EXIT_STOPPED)

    def compile_tool(self, tree_data: Any, module_name: str) -> Any:
        import _ast

        from dyntools.sandbox.worker.astcodec import decode

        tree = decode(tree_data, _ast)
        return compile(tree, self.filename, "exec", dont_inherit=True)

    def tool_globals(self, module_name: str) -> dict[str, Any]:
        module = type(sys)(module_name)
        sys.modules[module_name] = module
        namespace: dict[str, Any] = module.__dict__
        if "restricted" not in self.skip:
            namespace["__builtins__"] = self.builtins
            self.guards.tool_globals = namespace
            namespace.update(self.guards.guard_names())
        else:
            # Test-only: RestrictedPython's rewrites stay, but the guards let everything
            # through and the builtins are the real ones, to show the OS layers alone.
            import builtins

            from dyntools.sandbox.worker.guards import permissive_guard_names

            namespace["__builtins__"] = builtins
            namespace.update(permissive_guard_names())
        self.own_names = dict(namespace)
        return namespace

    def reply_exception(self, exc: BaseException, *, during: str, fatal: bool = False) -> bool:
        """Report a tool exception; return True when the worker must end."""
        return self.send_failure(self.failure(exc, during=during), fatal=fatal)

    def failure(self, exc: BaseException, *, during: str) -> tuple[str, str, list[list[Any]]]:
        """What a reply says of a tool's exception (reason, message, trace): plain data, so
        the exception and the frames its traceback holds can be dropped before the reply."""
        if isinstance(exc, MemoryError):
            return "memory_limit", f"the tool ran out of memory {during}", []
        tripwire = self.tripwire
        inside = tripwire is not None and tripwire.inside_tool
        if inside:
            tripwire.inside_tool = False  # reading the traceback raises audit events
        try:
            trace = _tool_trace(exc, self.filename, self.lines)
        finally:
            if inside:
                tripwire.inside_tool = True
        # A host request that failed, left uncaught, is the call's failure: said as such
        # (http_error), never confused with a bug in the tool. hostapi is loaded only for a
        # tool that imports host.
        hostapi = sys.modules.get("dyntools.sandbox.worker.hostapi")
        reason = ("http_error" if hostapi is not None and isinstance(exc, hostapi.HttpError)
                  else "runtime_error")
        return reason, _describe(exc), trace  # str(exc): inside the call's window

    def send_failure(self, failure: tuple[str, str, list[list[Any]]], *,
                     fatal: bool = False) -> bool:
        """Send a failure's reply; return True when the worker must end."""
        reason, message, trace = failure
        fatal = fatal or reason == "memory_limit"
        self.channel.send_error(reason, message, trace=trace, output=self.guards.take_output(),
                                fatal=fatal)
        return fatal

    def serve(self, run: Any) -> None:
        channel = self.channel
        rearm_cpu = self._cpu_rearm()
        spin = 0.0
        while True:
            try:
                message = channel.receive(self.max_params_bytes, spin)
            except EOFError:
                return
            # (call id, params, how long to poll for the next call after this one)
            if (type(message) is not tuple or len(message) != 3 or type(message[0]) is not int
                    or type(message[2]) is not float):
                return  # not a call frame: the host never sends one, so end
            spin = message[2]
            channel.opening = '{"id":' + str(message[0]) + ","  # channel.open_call, inlined
            # The params go to `answer` in a box it empties: no frame of the worker's keeps
            # them (nor what the tool put into them) past the call's window.
            params = [message[1]]
            message = None
            rearm_cpu()
            keep_going = self.answer(run, params)
            channel.opening = "{"  # channel.close_call
            if not keep_going:
                return

    def answer(self, run: Any, params: list[Any]) -> bool:
        """Run one call and send its one reply; False when the worker must end.

        The call's window (the audit hook's "inside tool", the guards, the output capture)
        stays open until nothing of the call is left: the result is encoded, then every
        reference the worker holds to it, to the params and to an exception (its traceback,
        its frames) is dropped, the library caches are emptied and the garbage is collected
        (`close_window`). Finalizers and weakref callbacks of the call's objects (a suspended
        generator's `finally`) run there, as this call's code: watched by the hook, their
        output this call's, what they store seen by the state check that follows."""
        channel = self.channel
        guards = self.guards
        tripwire = self.tripwire
        if guards.output and self.served:
            # Tool code printed between two calls: something of a call outlived its window.
            guards.output.clear()
            self.stop("sandbox_violation", "tool code ran between two calls")
        self.served = True
        if tripwire is not None:
            tripwire.inside_tool = True
        failure = None
        text = ""
        try:
            result = run(params.pop())
        except BaseException as exc:  # the tool's failure is data for the host
            failure = self.failure(exc, during="during the call")
        else:
            failure, text = self.encode(result)
            result = None
        lingering = self.close_window()
        if tripwire is not None:
            tripwire.inside_tool = False
            if tripwire.violation is not None:
                self.stop_missed_violation()
        if _thread_count():  # self.check_threads(), inlined
            self.check_threads()
        # State this call left behind must not reach the next caller, and a check that
        # could not finish refused its operation: the reply says the worker is spent, and
        # it ends after sending it.
        spent = (self.state.changed(forget=False) or guards.failed or lingering
                 or (tripwire is not None and tripwire.tripped))
        if failure is not None:
            return not self.send_failure(failure, fatal=spent)
        out = guards.take_output() if guards.output else ""  # nothing printed: nothing to take
        ending = (',"out":' + _encode_str(out) if out else "") + (',"spent":true}' if spent
                                                                   else "}")
        channel.send_text(channel.opening + '"ok":' + text + ending)
        return not spent

    def encode(self, result: Any) -> tuple[tuple[str, str, list[list[Any]]] | None, str]:
        """The result as JSON text, or why it cannot be sent. Inside the call's window: a
        dict subclass's items are read by the encoder."""
        try:
            if type(result) is not dict and not isinstance(result, dict):
                raise TypeError(f"run() returned {type(result).__name__}, not a dict")
            text = "".join(_encode_json(result, 0))
        except MemoryError:
            return ("memory_limit", "out of memory encoding the result", []), ""
        except (TypeError, ValueError, RecursionError) as exc:
            return ("bad_result", f"the result is not JSON: {exc}", []), ""
        if len(text) > self.max_result_bytes:
            return ("bad_result", f"the result is {len(text)} bytes, over the cap of "
                    f"{self.max_result_bytes}", []), ""
        return None, text

    def close_window(self) -> bool:
        """The end of a call, still inside its window: empty the caches (the worker's state
        resets, the library caches), then collect the garbage until none is left, so that
        every finalizer of the call's objects runs now. True (the worker is spent) when
        that could not be made sure: a collection still found garbage after
        MAX_COLLECTIONS, or something failed."""
        try:
            self.state.forget()
            self.library_caches.clear()
            return all(_collect() for _ in range(MAX_COLLECTIONS))
        except BaseException:  # fail closed
            return True

    def stop_missed_violation(self) -> NoReturn:
        """An audit event was judged a violation, but the hook could not end the call at once
        (`stop` itself failed, at the edge of the stack): the event was refused, and the call
        ends now that the tool has returned."""
        self.stop("sandbox_violation", f"the tool triggered the audit event "
                  f"{self.tripwire.violation!r}; it was refused, and the call ends here")

    def check_threads(self) -> None:
        """No thread may outlive a call. Nothing a tool may use starts one (and seccomp kills
        clone outright): a thread that exists was started by code that got past the guards."""
        if _thread_count():
            self.stop("sandbox_violation", "a thread outlived the call")


    def _cpu_rearm(self) -> Any:
        """Give each call a fresh CPU allowance under the lifetime hard limit.

        Reading the CPU time is a system call; the wall clock is not (vDSO). A worker has one
        thread (`check_threads`), so its CPU time grows no faster than the wall clock: while
        the time last read plus the wall time since then leaves a whole allowance under the
        soft limit, reading it again could not lead to raising the limit, and is skipped.
        (Were that bound ever wrong, the skip would leave the limit lower, never higher.)"""
        from time import monotonic

        from dyntools.sandbox.worker.layers import RLIMIT_CPU, set_rlimit

        budget = self.cpu_seconds
        hard = self.cpu_lifetime
        soft = budget
        # CPU time read last (plus two clock ticks of rounding) and when it was read.
        known = 0.0
        known_at = -float("inf")
        times = posix.times
        skip_rlimits = "rlimits" in self.skip

        def rearm() -> None:
            nonlocal soft, known, known_at
            if skip_rlimits:
                return
            now = monotonic()
            if known + (now - known_at) + budget <= soft:
                return
            used = times()
            spent = used[0] + used[1]
            known, known_at = spent + CPU_TICK_SLACK_S, now
            if spent + budget > soft:
                raised = int(spent) + 2 * budget
                try:
                    set_rlimit(RLIMIT_CPU, min(raised, hard), hard)
                    soft = raised
                except OSError:
                    pass  # the lifetime hard limit is reached; SIGXCPU will end the worker

        return rearm


def _lock_down(worker: Worker, init: dict[str, Any]) -> dict[str, list[object]]:
    # Everything the worker itself needs is imported before Landlock closes the file system.
    from dyntools.sandbox.worker.audit import AuditTripwire
    from dyntools.sandbox.worker.layers import lock_down

    report: dict[str, list[object]] = lock_down(
        memory_mb=init["memory_mb"],
        cpu_seconds=init["cpu_seconds"],
        cpu_lifetime=init["cpu_lifetime"],
        open_files=init["max_open_files"],
        read_paths=init["read_paths"],
        root=init.get("root"),
        seccomp_program=init["seccomp"],
        seccomp_missing_reason=init["seccomp_missing"],
        skip=worker.skip,
    )
    report["restricted"] = (
        [False, "disabled"] if "restricted" in worker.skip
        else [True, "RestrictedPython policy with runtime guards"]
    )
    if "audit_hook" in worker.skip:
        report["audit_hook"] = [False, "disabled"]
    else:
        worker.tripwire = AuditTripwire(worker.stop)
        worker.tripwire.install()
        worker.guards.tripwire = worker.tripwire
        report["audit_hook"] = [True, "CPython audit hook: a tripwire for process, socket, "
                                "ctypes, write and introspection events in tool code"]
    return report


def _load_module(worker: Worker, code: Any, module_name: str) -> Any:
    """Run the tool's module body (tool code: after lockdown); return its `run`."""
    namespace = worker.tool_globals(module_name)
    tripwire = worker.tripwire
    try:
        if tripwire is not None:
            tripwire.tool_code = code  # the one exec of tool code the hook lets through
            tripwire.inside_tool = True
        exec(code, namespace)
        if tripwire is not None:
            tripwire.tool_code = None  # its one run is over
        # The module body's garbage is finalized now, as module-body code: never in a call.
        worker.library_caches.clear()
        for _ in range(MAX_COLLECTIONS):
            if not _collect():
                break
    except BaseException as exc:  # module-level failure: report, then end
        if tripwire is not None:
            tripwire.inside_tool = False  # reading the traceback raises audit events
        worker.reply_exception(exc, during="while loading the module")
        posix._exit(EXIT_STOPPED)
    finally:
        if tripwire is not None:
            tripwire.inside_tool = False
    if tripwire is not None and tripwire.violation is not None:
        worker.stop_missed_violation()
    run = namespace.get("run")
    if not callable(run):
        worker.channel.send_error("compile_error", "the tool defines no run(params) function",
                                  fatal=True)
        posix._exit(EXIT_STOPPED)
    try:
        worker.state = worker.module_state(namespace)
    except BaseException:  # the state stays NotWalked: every call spends the worker
        worker.state = NotWalked()
    # Everything alive now (the interpreter, the libraries, the tool's module) is moved out of
    # the collector's sight: the collection at the end of each call (`close_window`) then
    # scans only what calls made since. Garbage among the frozen objects is never collected,
    # so no finalizer of it ever runs.
    _collect()
    gc.freeze()
    return run


def _preload() -> None:
    """The worker's own modules, imported before the init message arrives. Every worker
    imports exactly these, whatever its tool; the host starts the interpreter before it
    transforms the tool, so the imports run while it does."""
    import _ast  # noqa: F401
    import _weakref  # noqa: F401

    from dyntools.sandbox.worker import (  # noqa: F401
        astcodec,
        audit,
        caches,
        guards,
        hardening,
        layers,
        state,
    )


def _preimport(modules: Any) -> None:
    """Import the allowed modules the host says the tool imports, before its init message
    arrives (`Interpreter.preimport`): `Worker` imports the same list again from the init
    message, and finds them loaded. For `host`, the worker's own stubs module (made into
    the tool's `host` by `Worker`, never a module of that name)."""
    for name in modules if type(modules) is list else ():
        if type(name) is not str:
            continue
        if name == HOST_MODULE:
            from dyntools.sandbox.worker import hostapi  # noqa: F401
            continue
        try:  # noqa: SIM105 (contextlib costs the worker start-up time)
            __import__(name)
        except ImportError:
            pass  # absent on this Python: the import guard will refuse it


def main() -> None:
    from time import monotonic

    marks = {"worker_main": monotonic()}
    channel = _take_protocol_fds()
    _preload()
    marks["preloaded"] = monotonic()
    try:
        # Frames are read exactly here: the init message may follow a preimport frame.
        init = marshal.loads(protocol.read_frame(posix.read, channel.read_fd, 1 << 30))
        if type(init) is tuple and len(init) == 2 and init[0] == "preimport":
            _preimport(init[1])
            marks["preimported"] = monotonic()
            init = marshal.loads(protocol.read_frame(posix.read, channel.read_fd, 1 << 30))
    except (EOFError, ValueError):
        posix._exit(2)
    if type(init) is not dict:
        posix._exit(2)
    marks["init_received"] = monotonic()
    worker = Worker(channel, init)
    marks["modules_imported"] = monotonic()
    try:
        code = worker.compile_tool(init["tree"], init["module"])
    except (SyntaxError, ValueError, TypeError) as exc:
        channel.send_error("compile_error", _describe(exc), fatal=True)
        posix._exit(EXIT_STOPPED)
    marks["compiled"] = monotonic()
    report = _lock_down(worker, init)
    marks["locked_down"] = monotonic()
    # The layer report goes out before any tool code runs (the module body may call
    # functions), so tool code can never write it; the host checks it against /proc and
    # answers "go" only if every layer it requires is there.
    channel.send_text('{"hello":' + "".join(_encode_json(
        {"layers": report, "marks": marks}, 0)) + "}")
    try:
        go = channel.receive(64)
    except (EOFError, ValueError):
        posix._exit(0)
    if go != "go":
        posix._exit(2)
    run = _load_module(worker, code, init["module"])
    channel.send_text('{"ready":{"module_ran":' + repr(monotonic()) + "}}")
    worker.serve(run)
    posix._exit(0)

