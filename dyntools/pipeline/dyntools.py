"""`Dyntools`: ensure and call generated tools over one registry (its jobs live in
pipeline/ensure.py, pipeline/approval.py and pipeline/calls.py; their shared state in
pipeline/core.py)."""

from __future__ import annotations

from dyntools.pipeline.approval import Approving
from dyntools.pipeline.calls import Calling
from dyntools.pipeline.code import CodeRunning
from dyntools.pipeline.ensure import Ensuring
from dyntools.pipeline.record import Recording


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

    Code mode (pipeline/code.py): `run_code` runs a gated script over the registry's tools,
    `resume_run` continues one that waited for a decision, `promote` makes a tool of one.
    """
