"""The pipeline: `ensure` a tool exists (generating it if needed) and `call` it.

    dt = Dyntools("generated_tools")                  # or Dyntools(registry, generator=...)
    result = dt.ensure("slugify_text")                # lookup, else the six stations below
    dt.call("slugify_text", {"text": "Hello World"})  # execute, in the sandbox
    dt.close()

`ensure` looks the name up in the registry; on a miss (or with `new_version=True`) it runs

    generate -> gate -> load -> verify -> persist -> activate

generate   the generator writes source (model, file or template), retried with the gate's
           findings as feedback when the generator can use them;
gate       the static gate; a rejection ends here with `GateRejected` and nothing is written;
load       the gated text is compiled (RestrictedPython) inside a locked-down worker;
verify     the file's EXAMPLES, the caller's examples and (for a new version) the examples
           the current version passed run in that worker and must match exactly as JSON;
persist    the version is written to the registry with its verdict: approved, or rejected
           with the reason (a reviewer sees what was tried; a rejected version never runs);
           an approved version's pointer move is part of the same durable commit;
activate   the runtime serves the new version: new calls go to it, calls already running
           finish in the old one (its pool is swapped, or built on the first call).

When the registry's approval policy (config.json, made stricter per call with
`require_approval`) holds the version back, persist records it as `pending` and activate
does not run: the result's `pending` is true, and a call to the tool answers with
`PendingApproval` naming the command that approves it. A reviewer's `approve` (here:
`Dyntools.approve`) runs the same verification again before anything becomes current.

Verification comes before persistence so that the registry only ever records a verdict that
was actually reached: a version is written once, as approved or as rejected, and no approved
but unverified version exists even for a moment. The worker receives the gated bytes
themselves, so what was verified is byte for byte what is persisted and later served
(the runtime loads the registry's hash-checked bytes).

Every station ends in one audit event (structlog, event "pipeline.station") with tool, version,
station, duration_ms, outcome and reason, and in its product or a `DyntoolsError` leaf whose
`station` names where it failed. `on_station` listeners also see a "running" event as each
station starts (the CLI's live display).
"""

from __future__ import annotations

from dyntools import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.pipeline.ensure import EnsureResult
    from dyntools.pipeline.events import StationEvent

__all__ = ["Dyntools", "EnsureResult", "StationEvent"]

_HOMES = {
    "Dyntools": "dyntools.pipeline.dyntools",
    "EnsureResult": "dyntools.pipeline.ensure",
    "StationEvent": "dyntools.pipeline.events",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
