"""`Dyntools`: ensure and call generated tools over one registry (its jobs live in
pipeline/ensure.py, pipeline/approval.py and pipeline/calls.py; their shared state in
pipeline/core.py)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dyntools.pipeline.approval import Approving
from dyntools.pipeline.calls import Calling
from dyntools.pipeline.code import CodeRunning
from dyntools.pipeline.ensure import Ensuring
from dyntools.pipeline.record import Recording

if TYPE_CHECKING:
    from dyntools.generators.base import Generator
    from dyntools.pipeline.core import ToolSource
    from dyntools.pipeline.events import StationListener
    from dyntools.pipeline.repair import RepairResult

DAY_S = 86400.0


class Dyntools(Ensuring, Approving, Calling, CodeRunning, Recording):
    """Ensure and call generated tools over one registry. Thread-safe; close() when done.

    `generator` is the default source of new code (the offline templates unless given);
    `limits` and `require_layers` apply to verification and to calls. The runtime (one warm
    worker pool of `pool_size` workers per tool version, `dyntools.Runtime`) is created on
    the first call unless one is passed in; `runtime` hands it out.
    A registry given as a path is opened lazily (`Registry.open(path, lazy=True)`): each tool
    is read, and the versions it may serve are checked, when it is first used.
    `executor` says where calls run: "local" (warm pools on this machine) or "ray" (the
    SandboxHost actors of the Ray cluster at `ray_address`); unset, DYNTOOLS_EXECUTOR and
    DYNTOOLS_RAY_ADDRESS decide. Generation, the gate, verification and the registry stay
    in this process whatever the executor. `capabilities` is the operator's capability
    policy (a CapabilityPolicy or a TOML path; unset, DYNTOOLS_CAPABILITIES): what a tool that
    declares CAPABILITIES may be granted. Nothing is granted without one.
    `allow_weaker_sandbox`: verification and calls run tool code even where the sandbox is
    below its default minimum (dyntools/sandbox/minimum.py), which is refused otherwise
    (`LayerUnavailable`); unset, DYNTOOLS_ALLOW_WEAKER_SANDBOX=1 decides. The opt-in goes to
    the audit log.
    `allow_unreviewed_repairs`: a `repair` asked for through this object follows the
    registry's approval policy; unset, every repair waits for a reviewer (a counterexample
    may come from a prompt-injected agent and changes the tool for every user).
    `keep_failed_calls`: a failed call keeps its params, redacted, for `repair(call=ID)`
    (pipeline/failed_calls.py says what is kept and for how long).
    `isolation`: "worker" (the default: a warm worker serves call after call, its state
    compared after each) or "call" (no process that ran one call ever runs another: each
    call gets a worker forked for it from the zygote). Choose "call" when callers must not
    reach each other through a shared process: a server for several users with tools
    nobody reviewed (dyntools/sandbox/isolation.py, docs/sandbox.md).

    Code mode (pipeline/code.py): `run_code` runs a gated script over the registry's tools,
    `resume_run` continues one that waited for a decision, `promote` makes a tool of one.
    """

    def repair(self, name: str, params: Mapping[str, Any] | None, expected: Mapping[str, Any],
               *, reason: str | None = None, generator: Generator | None = None,
               call: str | None = None, exchanges: Sequence[Mapping[str, Any]] | None = None,
               require_approval: bool = False, requested_by: str = "library",
               on_station: StationListener | None = None,
               tools: ToolSource | None = None) -> RepairResult:
        """Turn a failing call of `name` and the result it should have given into a verified
        next version (pipeline/repair.py; docs/repair.md). It waits for a reviewer unless
        this object was made with `allow_unreviewed_repairs=True`."""
        from dyntools.pipeline.repair import Repairer

        return Repairer(self).repair(
            name, params, expected, reason=reason, generator=generator, call=call,
            exchanges=exchanges, require_approval=require_approval,
            requested_by=requested_by, on_station=on_station, tools=tools)

    def health(self, *, since: float = 30 * DAY_S, stale_days: float = 14.0,
               audit_log: str | os.PathLike[str] | None = None, jobs: int | None = None,
               now: float | None = None,
               on_version: Callable[[Any], None] | None = None) -> dict[str, Any]:
        """The registry's health report, the dict `dyntools health --json` prints
        (pipeline/health.py; docs/health.md). It changes nothing served."""
        from dyntools.pipeline.health import HealthCheck

        return HealthCheck(self).health(since=since, stale_days=stale_days,
                                        audit_log=audit_log, jobs=jobs, now=now,
                                        on_version=on_version)
