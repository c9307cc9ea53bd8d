"""Run a file in a sandbox worker WITHOUT the gate, to see what each layer holds on its own.

    from dyntools.sandbox.testing import run_unchecked

    outcome = run_unchecked("attack.py", {}, disable=("restricted", "audit_hook", "seccomp"))
    outcome == {"ok": False, "result": None, "error": "...", "reason": "sandbox_violation",
                "layers": {"landlock_fs": {"active": True, ...}, ...}}

This is for testing the sandbox, never for running tools: the static gate is skipped, and
`disable` switches layers off (`restricted` off means the tool's code runs as written, with
the real builtins and `__import__`). A `disable` that is not empty is the opt-in to run below
the sandbox's default minimum (`allow_weaker_sandbox`, sandbox/minimum.py): switching layers
off is asking for a weaker sandbox; with nothing disabled, a host below the minimum refuses as
every other path does. The layers a worker reports are the host's verified view
(`dyntools.sandbox.kernel_view`); `require` makes a missing one a `layer_unavailable` outcome
before any tool code runs. Never raises for what the tool does: every outcome is a dict with
exactly the keys `ok`, `result`, `error`, `reason`, `layers`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dyntools.errors import DyntoolsError
from dyntools.gate.policy import Policy, load_policy
from dyntools.sandbox.limits import LAYERS, SandboxLimits
from dyntools.sandbox.pool import default_module_name
from dyntools.sandbox.runner import EmptyDirectory, WorkerProcess
from dyntools.sandbox.spec import build_spec

PYTHON_LAYERS = frozenset({"restricted", "audit_hook"})
OS_LAYERS = frozenset(LAYERS) - PYTHON_LAYERS


def run_unchecked(
    path: Path | str,
    params: dict[str, Any],
    *,
    disable: Iterable[str] = (),
    require: Iterable[str] = (),
    policy: Policy | None = None,
    limits: SandboxLimits | None = None,
) -> dict[str, Any]:
    """Run `path` once in a fresh worker with the layers in `disable` switched off and no
    gate; return `{"ok", "result", "error", "reason", "layers"}`.

    `ok` is True when `run(params)` returned a JSON object (`result`); otherwise `reason` is
    the error's reason (`sandbox_violation`, `runtime_error`, `layer_unavailable`, ...) and
    `error` its message. `layers` is the host-verified view (empty if the worker never
    reported). Unknown layer names raise `ValueError`.
    """
    skip = frozenset(disable)
    required = frozenset(require)
    unknown = sorted((skip | required) - set(LAYERS))
    if unknown:
        raise ValueError(f"unknown layer(s) {unknown}; known: {', '.join(LAYERS)}")
    outcome: dict[str, Any] = {"ok": False, "result": None, "error": None, "reason": None,
                               "layers": {}}
    try:
        spec = build_spec(
            path, module_name=default_module_name(path), policy=policy or load_policy(),
            limits=limits or SandboxLimits(timeout_s=5.0), require_layers=required,
            skip_layers=skip, allow_weaker_sandbox=bool(skip),
        )
    except DyntoolsError as exc:
        outcome.update(error=exc.message, reason=exc.reason)
        return outcome
    cwd = EmptyDirectory()
    try:
        worker = WorkerProcess(spec, cwd.path)
        try:
            worker.start()
            outcome["layers"] = worker.layers
            result = worker.call(params).result
            outcome.update(ok=True, result=result)
        except DyntoolsError as exc:
            outcome.update(error=exc.message, reason=exc.reason,
                           layers=worker.layers)
        finally:
            worker.kill()
    finally:
        cwd.remove()
    return outcome
