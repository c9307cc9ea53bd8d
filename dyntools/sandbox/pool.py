"""A warm pool of workers for one tool version, and the one-shot `run_once`.

A call takes an idle worker (or starts one while the pool is below its size) and gives it
back afterwards. A worker that timed out, crashed, hit a limit or tripped a guard is killed
and replaced, never reused. A worker retires after `max_calls_per_worker` calls, without a
call ever waiting for it: when it reaches the limit its replacement starts in the background
and it keeps serving until the replacement is idle, then it ends. `close()` stops new calls;
calls already running finish and their workers retire when idle, which is how a hot reload
lets the old version drain while the new one takes new calls.
"""

from __future__ import annotations

import atexit
import contextlib
import re
import threading
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dyntools.base.closing import Closing
from dyntools.errors import SandboxError, SandboxTimeout, UsageError
from dyntools.sandbox import zygote
from dyntools.sandbox.isolation import CALL, WORKER, check_isolation
from dyntools.sandbox.limits import SandboxLimits
from dyntools.sandbox.runner import (
    CallOutcome,
    EmptyDirectory,
    HostHandler,
    Interpreter,
    WorkerProcess,
)
from dyntools.sandbox.spec import build_spec

if TYPE_CHECKING:
    from dyntools.gate.policy import Policy


class WorkerPool(Closing):
    """Thread-safe: many threads may call at once; each call has a worker to itself."""

    def __init__(
        self,
        source_path: Path | str,
        *,
        module_name: str,
        policy: Policy,
        limits: SandboxLimits = SandboxLimits(),  # noqa: B008 (frozen value object)
        size: int = 2,
        max_calls_per_worker: int = 1000,
        require_layers: frozenset[str] = frozenset(),
        source: str | None = None,
        stderr: int | None = None,
        allow_weaker_sandbox: bool = False,
        isolation: str = WORKER,
        _skip_layers: frozenset[str] = frozenset(),
    ) -> None:
        """`allow_weaker_sandbox`: run tool code where the verified layers are below the
        default minimum (sandbox/minimum.py); without it such a worker is refused
        (LayerUnavailable) before the tool's module body runs. `isolation` "call": every
        worker serves one call and ends (sandbox/isolation.py); "worker": warm workers."""
        self.isolation = check_isolation(isolation)
        if isolation == CALL:
            max_calls_per_worker = 1
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        if max_calls_per_worker < 1:
            raise ValueError("max_calls_per_worker must be at least 1")
        self._stderr = stderr
        # The first worker's interpreter starts now (or was started by `prestart`) and
        # imports the worker's own modules while this process parses and transforms the
        # tool; it gets nothing until then.
        spare = _take_spare() if stderr is None else None
        if spare is not None:
            interpreter, self._cwd = spare
        else:
            self._cwd = EmptyDirectory()
            interpreter = Interpreter(self._cwd.path, stderr=stderr, zygote=zygote.shared())
        self._early: list[Interpreter] = [interpreter]
        try:
            self.spec = build_spec(
                source_path, module_name=module_name, policy=policy, limits=limits,
                require_layers=require_layers, skip_layers=_skip_layers, source=source,
                on_imports=self._early[0].preimport, allow_weaker_sandbox=allow_weaker_sandbox,
            )
        except BaseException:
            _abandon([], self._early, self._cwd)
            raise
        self.size = size
        self.max_calls_per_worker = max_calls_per_worker
        # `with self._lock` is the Condition's own lock, entered without the Python-level
        # Condition.__enter__ (two Python calls per call of the pool, at each end).
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._idle: list[WorkerProcess] = []
        self._busy = 0
        self._live = 0  # workers running or starting, counted against `size`
        # Workers starting in the background (a warm-up, a replacement): close() ends them
        # rather than wait up to the start-up limit for a worker no call is waiting for.
        self._starting: set[WorkerProcess] = set()
        self._waiting = 0  # threads inside self._cond.wait(): a release wakes them
        self._closed = False
        self._warm = False
        # Workers past max_calls_per_worker: id -> False while their replacement is starting,
        # True once it is idle (the old worker then ends as soon as it is idle itself).
        self._due: dict[int, bool] = {}
        # "cold_starts": calls that started a worker themselves and waited for it.
        self._counts = {"started": 0, "replaced": 0, "retired": 0, "calls": 0,
                        "cold_starts": 0}
        self.layers: dict[str, dict[str, Any]] = {}
        # A pool dropped without close(): end its idle workers and remove its directory.
        weakref.finalize(self, _abandon, self._idle, self._early, self._cwd)

    # -- public -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start workers up to `size` now, in parallel (otherwise calls start them as
        needed). Raises the first start-up error, e.g. `LayerUnavailable`."""
        self._warm = True
        with self._lock:
            missing = 0 if self._closed else max(0, self.size - self._live)
            self._live += missing
        errors: list[BaseException] = []

        def spawn() -> None:
            try:
                self._spawn_idle()
            except BaseException as exc:  # re-raised in the calling thread below
                errors.append(exc)

        threads = [threading.Thread(target=spawn, name="dyntools-sandbox-start")
                   for _ in range(missing)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors and not self._closed:  # after close(), a start it ended is no error
            raise errors[0]

    def call(self, params: dict[str, Any], timeout: float | None = None, *,
             host: HostHandler | None = None) -> dict[str, Any]:
        """Run the tool's `run(params)` in a worker; the result dict, or a `SandboxError`.
        `host` answers the call's capability requests (see WorkerProcess.call)."""
        return self._call(params, timeout, host)[0]

    def call_outcome(self, params: dict[str, Any], timeout: float | None = None, *,
                     host: HostHandler | None = None) -> CallOutcome:
        """Like `call`, with the tool's captured output as well. A `timeout` given here is
        the call's whole budget: waiting for a busy pool's worker counts against it (a
        composed call inherits what is left of its caller's, and two tools composing each
        other through full pools would otherwise wait on each other for ever)."""
        return CallOutcome(*self._call(params, timeout, host))

    def _call(self, params: dict[str, Any], timeout: float | None,
              host: HostHandler | None) -> tuple[dict[str, Any], str]:
        """(result, output) of one call (`call_outcome`)."""
        worker, waited = self._acquire(
            time.monotonic() + timeout if timeout is not None else None)
        if timeout is not None and waited:
            timeout = max(timeout - waited, 0.0)
        try:
            return worker.call_result(params, timeout, host=host)
        finally:
            self._release(worker)

    def close(self, wait: bool = True) -> None:
        """No new calls; idle workers end now, busy ones when their call finishes."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            early, self._early[:] = list(self._early), []
            self._due.clear()
            self._live -= len(idle)
            self._counts["retired"] += len(idle)
            self._cond.notify_all()
            starting = list(self._starting)
        for interpreter in early:
            interpreter.kill()
        for worker in starting:
            worker.abort_start()
        for worker in idle:
            worker.stop()
        if wait:
            with self._lock:
                while self._live > 0:
                    self._wait()
        self._maybe_remove_cwd()

    @property
    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "size": self.size,
                "idle": len(self._idle),
                "busy": self._busy,
                "live": self._live,
                "closed": self._closed,
                **self._counts,
            }


    # -- internals ------------------------------------------------------------------------------

    def _wait(self, timeout: float | None = None) -> None:
        """`self._cond.wait(timeout)`, counted in `_waiting` (hold `self._lock`)."""
        self._waiting += 1
        try:
            self._cond.wait(timeout)
        finally:
            self._waiting -= 1

    def _new_worker(self, *, background: bool = False) -> WorkerProcess:
        """Start one worker. A `background` one (no call waits for it) is ended by close()
        while it starts; a call's own cold start is not: that call is not finished."""
        with self._lock:
            early = self._early.pop() if self._early else None
        if early is not None and not early.alive():
            early.kill()
            early = None
        if early is None:  # forked from this process's zygote where it can be
            early = Interpreter(self._cwd.path, stderr=self._stderr, zygote=zygote.shared())
        worker = WorkerProcess(self.spec, self._cwd.path, stderr=self._stderr,
                               interpreter=early)
        with self._lock:
            self._counts["started"] += 1
            if background:
                if self._closed:
                    worker.abort_start()
                self._starting.add(worker)
        try:
            self.layers = worker.start()
        finally:
            if background:
                with self._lock:
                    self._starting.discard(worker)
        return worker

    def _spawn_idle(self, succeeds: WorkerProcess | None = None) -> None:
        """Start one worker for a slot already counted in `_live` and park it idle. With
        `succeeds` (a worker past its call limit), that worker ends once this one is idle."""
        try:
            worker = self._new_worker(background=True)
        except BaseException:
            with self._lock:
                self._live -= 1
                if succeeds is not None and id(succeeds) in self._due:
                    # No replacement: the old worker ends at its next release, and the call
                    # after that starts a worker itself (and reports the error).
                    self._due[id(succeeds)] = True
                self._cond.notify_all()
            raise
        ended: list[WorkerProcess] = []
        with self._lock:
            if self._closed:
                self._live -= 1
                self._counts["retired"] += 1
                self._cond.notify_all()
                ended.append(worker)
            else:
                self._idle.append(worker)
                if succeeds is not None and id(succeeds) in self._due:
                    if succeeds in self._idle:
                        self._idle.remove(succeeds)
                        del self._due[id(succeeds)]
                        self._live -= 1
                        self._counts["retired"] += 1
                        ended.append(succeeds)
                    else:  # busy: it ends when its call is done
                        self._due[id(succeeds)] = True
                self._cond.notify()
        for old in ended:
            old.stop()
        if ended:
            self._maybe_remove_cwd()

    def _acquire(self, deadline: float | None = None) -> tuple[WorkerProcess, float]:
        """A worker for one call, and how long the call waited for one (a busy pool). With
        a `deadline`, a wait past it is a SandboxTimeout."""
        waited_since: float | None = None
        with self._lock:
            while True:
                if self._closed:
                    raise UsageError("the worker pool is closed")
                if self._idle:
                    self._busy += 1
                    self._counts["calls"] += 1
                    return self._idle.pop(), _since(waited_since)
                if self._live < self.size:
                    self._live += 1
                    self._busy += 1
                    self._counts["calls"] += 1
                    self._counts["cold_starts"] += 1
                    break
                if waited_since is None:
                    waited_since = time.monotonic()
                if deadline is None:
                    self._wait()
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise SandboxTimeout(
                        f"every worker of this tool stayed busy past the call's time limit "
                        f"({self.size} at once); nothing ran", waited_for="worker")
                self._wait(remaining)
        waited = _since(waited_since)  # a cold start is not counted: only the queue is
        try:
            return self._new_worker(), waited
        except BaseException:
            with self._lock:
                self._live -= 1
                self._busy -= 1
                self._cond.notify_all()
            raise

    def _release(self, worker: WorkerProcess) -> None:
        replace = False
        succeed = False
        with self._lock:
            self._busy -= 1
            # Per-call isolation: a worker that served a call is spent, whatever it says.
            spent = worker.spent or self.isolation == CALL
            if not (self._due or worker.broken or spent or self._closed
                    or worker.calls >= self.max_calls_per_worker):
                # The common case, settled at once: back to the idle list.
                self._idle.append(worker)
                if self._waiting:  # nobody waits on most calls: notify_all is Python code
                    self._cond.notify_all()
                return
            due = self._due.get(id(worker))
            if worker.broken or spent or self._closed or due:
                self._live -= 1
                self._due.pop(id(worker), None)
                if worker.broken or spent:
                    self._counts["replaced"] += 1
                    replace = self._warm and not self._closed
                else:
                    self._counts["retired"] += 1
                retire = True
            else:
                if due is None and worker.calls >= self.max_calls_per_worker:
                    # Its replacement starts now, in the background, over `size` for a
                    # moment; this worker keeps serving until the replacement is idle.
                    self._due[id(worker)] = False
                    self._live += 1
                    succeed = True
                self._idle.append(worker)
                retire = False
            if self._waiting:  # nobody waits on most calls: notify_all is Python code
                self._cond.notify_all()
        if succeed:
            self._start_background(worker)
        if retire:
            if worker.broken:
                worker.kill()
            else:
                worker.stop()
            if replace:
                self._replace_in_background()
            self._maybe_remove_cwd()

    def _replace_in_background(self) -> None:
        with self._lock:
            if self._closed or self._live >= self.size:
                return
            self._live += 1
        self._start_background(None)

    def _start_background(self, succeeds: WorkerProcess | None) -> None:
        """Start a worker for a slot already counted in `_live`, in a daemon thread."""

        def spawn() -> None:
            # On failure the next call starts a worker itself and reports the error.
            with contextlib.suppress(SandboxError):
                self._spawn_idle(succeeds)

        threading.Thread(target=spawn, name="dyntools-sandbox-replace", daemon=True).start()

    def _maybe_remove_cwd(self) -> None:
        with self._lock:
            done = self._closed and self._live == 0
        if done:
            self._cwd.remove()


def _abandon(idle: list[WorkerProcess], early: list[Interpreter], cwd: EmptyDirectory) -> None:
    for worker in list(idle):
        worker.kill()
    for interpreter in list(early):
        interpreter.kill()
    cwd.remove()


_spare_lock = threading.Lock()
_spare: list[tuple[Interpreter, EmptyDirectory]] = []
_exit_hook: list[object] = []  # non-empty once _end_spare is registered with atexit


def prestart() -> None:
    """Start one worker interpreter now, in its own empty directory, for the next pool this
    process creates (one without `stderr`) to take as its first worker's. A caller that
    knows a pool is coming (`dyntools call`, before it opens the registry) lets the
    interpreter's start and the worker's own imports run while it does the rest. The
    interpreter gets nothing until a pool has its spec; one that no pool takes is ended at
    exit. Best effort: an interpreter that cannot be started here is started by the pool."""
    with _spare_lock:
        if _spare:
            return
        try:
            directory = EmptyDirectory()
        except OSError:
            return
        try:
            interpreter = Interpreter(directory.path)
        except OSError:
            directory.remove()
            return
        _spare.append((interpreter, directory))
        if not _exit_hook:
            _exit_hook.append(atexit.register(_end_spare))


def _take_spare() -> tuple[Interpreter, EmptyDirectory] | None:
    with _spare_lock:
        spare = _spare.pop() if _spare else None
    if spare is not None and not spare[0].alive():
        spare[0].kill()
        spare[1].remove()
        return None
    return spare


def warm_up() -> None:
    """Start this process's zygote now (sandbox/zygote.py), for the pools it will create:
    `Dyntools(...)` calls it, so that the zygote's interpreter starts while the registry
    opens and the first tool is checked. Nothing when a prestarted interpreter waits for a
    pool (`prestart`: a one-shot `dyntools call` needs no zygote) or no zygote can be
    used here."""
    with _spare_lock:
        if _spare:
            return
    zygote.shared()


def _end_spare() -> None:
    with _spare_lock:
        left, _spare[:] = list(_spare), []
    for interpreter, directory in left:
        interpreter.kill()
        directory.remove()


def default_module_name(source_path: Path | str) -> str:
    stem = re.sub(r"[^0-9A-Za-z_]", "_", Path(source_path).stem) or "tool"
    return f"dyntools_exec_{stem}"


def _since(started: float | None) -> float:
    return time.monotonic() - started if started is not None else 0.0


def run_once_outcome(
    source_path: Path | str,
    params: dict[str, Any],
    *,
    policy: Policy,
    limits: SandboxLimits = SandboxLimits(),  # noqa: B008 (frozen value object)
    module_name: str | None = None,
    require_layers: frozenset[str] = frozenset(),
    source: str | None = None,
    host: HostHandler | None = None,
    allow_weaker_sandbox: bool = False,
    _skip_layers: frozenset[str] = frozenset(),
) -> tuple[CallOutcome, dict[str, dict[str, Any]]]:
    """Start one worker, call it once, end it; the outcome and the layer report.
    `allow_weaker_sandbox` as for WorkerPool."""
    cwd = EmptyDirectory()
    try:
        # Started first: the interpreter starts while this process transforms the tool.
        interpreter = Interpreter(cwd.path)
        try:
            spec = build_spec(
                source_path, module_name=module_name or default_module_name(source_path),
                policy=policy, limits=limits, require_layers=require_layers,
                skip_layers=_skip_layers, source=source, on_imports=interpreter.preimport,
                allow_weaker_sandbox=allow_weaker_sandbox,
            )
            worker = WorkerProcess(spec, cwd.path, interpreter=interpreter)
            layers = worker.start()
            return worker.call(params, host=host), layers
        finally:
            interpreter.kill()
    finally:
        cwd.remove()


def run_once(
    source_path: Path | str,
    params: dict[str, Any],
    *,
    policy: Policy,
    limits: SandboxLimits = SandboxLimits(),  # noqa: B008 (frozen value object)
    module_name: str | None = None,
    require_layers: frozenset[str] = frozenset(),
    source: str | None = None,
    host: HostHandler | None = None,
    allow_weaker_sandbox: bool = False,
    _skip_layers: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Cold one-shot: start a locked-down worker, run `run(params)`, end the worker.
    `allow_weaker_sandbox` as for WorkerPool."""
    outcome, _ = run_once_outcome(
        source_path, params, policy=policy, limits=limits, module_name=module_name,
        require_layers=require_layers, source=source, host=host,
        allow_weaker_sandbox=allow_weaker_sandbox, _skip_layers=_skip_layers,
    )
    return outcome.result
