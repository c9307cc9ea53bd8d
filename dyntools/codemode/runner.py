"""One segment of a script in one sandboxed worker: started, called once, ended.

A script's worker is a tool worker (dyntools/sandbox/): the same init message, the same
layers checked against /proc before any of its code runs, the same refusal below the
default minimum unless the operator opted in, and the same RestrictedPython transform of its
tree (the wrapped script, dyntools/codemode/wrap.py). It serves one call and ends: a script
is run once, so a warm pool would only hold a worker nothing reuses. Scripts run on this
machine whatever the executor; the tools they call run where that executor puts them.
"""

from __future__ import annotations

import ast
import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dyntools.codemode.host import ScriptHost
from dyntools.errors import Overloaded
from dyntools.gate.policy import Policy
from dyntools.sandbox.limits import SandboxLimits
from dyntools.sandbox.runner import CallOutcome, EmptyDirectory, Interpreter, WorkerProcess
from dyntools.sandbox.spec import build_spec

# Script workers one process runs at once (an MCP server or an agent loop may run many
# scripts in parallel, and each is a worker of its own, not one from a bounded pool); a run
# past it waits for a slot within its own time, then is refused (Overloaded).
MAX_CONCURRENT_SCRIPTS = 8
_SLOTS = threading.BoundedSemaphore(MAX_CONCURRENT_SCRIPTS)
# How often a resume's watch looks at the clock (seconds).
WATCH_INTERVAL_S = 0.05


def run_in_worker(*, source: str, tree: ast.Module, inputs: dict[str, Any], host: ScriptHost,
                  path: Path, module_name: str, policy: Policy, limits: SandboxLimits,
                  require_layers: frozenset[str], allow_weaker_sandbox: bool) -> CallOutcome:
    """Run the wrapped `tree` once with `inputs`, its requests answered by `host`. Raises
    what the worker's call raises (a DyntoolsError, or what `host` raised)."""
    if not _SLOTS.acquire(timeout=limits.timeout_s):
        raise Overloaded(f"{MAX_CONCURRENT_SCRIPTS} scripts were already running in this "
                         f"process for the whole of this run's {limits.timeout_s:g} s",
                         max_concurrent=MAX_CONCURRENT_SCRIPTS)
    try:
        return _run(source=source, tree=tree, inputs=inputs, host=host, path=path,
                    module_name=module_name, policy=policy, limits=limits,
                    require_layers=require_layers, allow_weaker_sandbox=allow_weaker_sandbox)
    finally:
        _SLOTS.release()


def _run(*, source: str, tree: ast.Module, inputs: dict[str, Any], host: ScriptHost,
         path: Path, module_name: str, policy: Policy, limits: SandboxLimits,
         require_layers: frozenset[str], allow_weaker_sandbox: bool) -> CallOutcome:
    cwd = EmptyDirectory()
    try:
        # Started first: the interpreter starts while this process transforms the script.
        interpreter = Interpreter(cwd.path)
        try:
            spec = build_spec(path, module_name=module_name, policy=policy, limits=limits,
                              require_layers=require_layers, source=source, tree=tree,
                              on_imports=interpreter.preimport,
                              allow_weaker_sandbox=allow_weaker_sandbox)
            worker = WorkerProcess(spec, cwd.path, interpreter=interpreter)
            worker.start()
            host.started()
            with _live_deadline_watch(host, worker.pid):
                return worker.call(inputs, host=host, on_output=host.printed)
        finally:
            interpreter.kill()
    finally:
        cwd.remove()


@contextlib.contextmanager
def _live_deadline_watch(host: ScriptHost, pid: int) -> Iterator[None]:
    """For a resume: end the worker when its live part passes the run's time left.

    A worker has one deadline, set when its call begins; a resume's must include the time
    its replayed prefix takes (the prefix's own code runs again), so it is longer than the
    run has left. This watch holds the live part, which begins at the first call past the
    record, to the run's time left: past it the worker's process group is killed and
    `host.overran` makes the segment end as a timeout. A first run needs none (its worker's
    deadline is the run's time left)."""
    if not host.resuming:
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while not done.wait(WATCH_INTERVAL_S):
            deadline = host.live_deadline()
            if deadline is not None and time.monotonic() >= deadline:
                host.overran = True
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)
                return

    thread = threading.Thread(target=watch, name=f"dyntools-run-{host.run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
