"""The sandbox: approved tool code runs in locked-down worker processes, never in the host.

Public API (host side):

    from dyntools.sandbox import SandboxLimits, WorkerPool, run_once, probe_layers

Names are resolved lazily: the worker imports `dyntools.sandbox.worker.process`, which must not pay
for the host-side modules (RestrictedPython, pyseccomp, subprocess) at start-up.
"""

from __future__ import annotations

from dyntools import lazy_exports

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the worker 4 ms
if TYPE_CHECKING:
    from dyntools.sandbox.doctor import probe_layers
    from dyntools.sandbox.limits import LAYERS, SandboxLimits
    from dyntools.sandbox.pool import WorkerPool, run_once
    from dyntools.sandbox.runner import CallOutcome

__all__ = ["LAYERS", "CallOutcome", "SandboxLimits", "WorkerPool", "probe_layers", "run_once"]

_HOMES = {
    "LAYERS": "dyntools.sandbox.limits",
    "SandboxLimits": "dyntools.sandbox.limits",
    "WorkerPool": "dyntools.sandbox.pool",
    "run_once": "dyntools.sandbox.pool",
    "CallOutcome": "dyntools.sandbox.runner",
    "probe_layers": "dyntools.sandbox.doctor",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
