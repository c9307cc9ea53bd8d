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

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from dyntools.errors import (
    DyntoolsError,
    GateRejected,
    LoadError,
    PendingApproval,
    PersistError,
    RegistryError,
    SandboxError,
    UnknownTool,
    UsageError,
    VerificationFailed,
    VersionUnusable,
)
from dyntools.executors import Executor, build_executor
from dyntools.findings import GateReport
from dyntools.gate import check_source
from dyntools.gate.capabilities import Capabilities
from dyntools.gate.policy import Policy
from dyntools.hostcalls import CapabilityHost, HostCalls, ToolCaller
from dyntools.log import get_logger
from dyntools.registry import APPROVED, REJECTED, Registry, VersionRecord, module_name_for
from dyntools.registry.config import (
    check_policy,
    needs_approval,
    stricter,
)
from dyntools.registry.manifest import PENDING
from dyntools.registry.signing import Signer
from dyntools.runtime import Runtime
from dyntools.sandbox import SandboxLimits
from dyntools.toolmeta import (
    REGISTRY,
    Tool,
    ToolMetadata,
    params_check,
    params_validator,
    read_metadata,
)

if TYPE_CHECKING:
    from typing import NamedTuple

    from dyntools.capabilities import CapabilityPolicy
    from dyntools.generators.base import Generator, ToolSpec
    from dyntools.generators.loop import GatedSource
    from dyntools.verify import Example, HostFor, VerificationReport
else:  # typing's checks every annotation as the class is made (dyntools/tuples.py)
    from dyntools.tuples import NamedTuple

# Generation (dyntools.generators) and verification (dyntools.verify) are imported by the
# methods that use them: `dyntools call` runs neither, and its start-up is its cost.

ENV_CAPABILITIES = "DYNTOOLS_CAPABILITIES"
# generate_gated's own default (generators/loop.py; tests/test_startup.py holds the two
# equal), named here so that a `Dyntools` made only to call tools need not import the loop.
DEFAULT_MAX_ATTEMPTS = 3

STATIONS = ("generate", "gate", "load", "verify", "persist", "activate")
LOOKUP, EXECUTE = "lookup", "execute"
RUNNING, OK, FAILED = "running", "ok", "failed"
AUDIT_FILE = "audit.log"
AUDIT_EVENT = "pipeline.station"


# The pipeline's values are NamedTuples, not dataclasses (see registry/records.py): a cold
# `dyntools call` imports this module and would create them for nothing.
class StationEvent(NamedTuple):
    """One station's start ("running") or end (any other outcome), as logged and displayed."""

    tool: str
    station: str
    outcome: str
    duration_ms: float | None = None
    version: int | None = None
    reason: str | None = None
    detail: str = ""

    @property
    def finished(self) -> bool:
        return self.outcome != RUNNING

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "station": self.station,
            "outcome": self.outcome,
            "duration_ms": self.duration_ms,
            "version": self.version,
            "reason": self.reason,
            "detail": self.detail,
        }


StationListener = Callable[[StationEvent], None]


class EnsureResult(NamedTuple):
    """The tool as callers see it, the registry record behind it, and how it got there."""

    tool: Tool
    record: VersionRecord
    created: bool
    stations: tuple[StationEvent, ...]
    verification: VerificationReport | None = None

    @property
    def name(self) -> str:
        return self.tool.name

    @property
    def version(self) -> int:
        return self.record.version

    @property
    def pending(self) -> bool:
        """Verified, persisted, and waiting for a reviewer: not served until approved."""
        return self.record.status == PENDING

    @property
    def approve_command(self) -> str:
        return approve_command(self.record.name, self.record.version)

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool.as_dict(),
            "version": self.record.version,
            "created": self.created,
            "status": self.record.status,
            **({"approve_command": self.approve_command} if self.pending else {}),
            "sha256": self.record.sha256,
            "provenance": dict(self.record.provenance),
            "stations": [e.as_dict() for e in self.stations if e.finished],
            "verification": self.verification.as_dict() if self.verification else None,
        }


class _Outcome:
    """What a station body reports back to the recorder (defaults: success). (This and
    `_Recorder` are plain classes: a dataclass costs every cold `dyntools call`, which uses
    neither, its creation.)"""

    __slots__ = ("detail", "outcome", "reason")

    def __init__(self) -> None:
        self.outcome: str = OK
        self.reason: str | None = None
        self.detail = ""


class _Recorder:
    __slots__ = ("events", "listener", "tool", "version")

    def __init__(self, tool: str, listener: StationListener | None) -> None:
        self.tool = tool
        self.listener = listener
        self.version: int | None = None
        self.events: list[StationEvent] = []

    def emit(self, event: StationEvent) -> None:
        if event.finished:
            self.events.append(event)
            get_logger("pipeline").info(
                AUDIT_EVENT,
                tool=event.tool,
                version=event.version,
                station=event.station,
                duration_ms=event.duration_ms,
                outcome=event.outcome,
                reason=event.reason,
                detail=event.detail or None,
            )
        if self.listener is not None:
            self.listener(event)

    def done(self, station: str, outcome: str, duration_ms: float, *,
             reason: str | None = None, detail: str = "") -> None:
        self.emit(StationEvent(self.tool, station, outcome, round(duration_ms, 3),
                               self.version, reason, detail))

    @contextlib.contextmanager
    def station(self, station: str) -> Iterator[_Outcome]:
        self.emit(StationEvent(self.tool, station, RUNNING, version=self.version))
        result = _Outcome()
        started = time.perf_counter()
        try:
            yield result
        except DyntoolsError as exc:
            self.done(station, FAILED, _ms(started), reason=exc.reason,
                      detail=exc.message)
            raise
        except BaseException as exc:
            self.done(station, FAILED, _ms(started), reason="internal_error", detail=repr(exc))
            raise
        self.done(station, result.outcome, _ms(started), reason=result.reason,
                  detail=result.detail)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


class Dyntools:
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
    """

    def __init__(
        self,
        registry: Registry | str | os.PathLike[str] | None = None,
        *,
        policy: Policy | None = None,
        generator: Generator | None = None,
        runtime: Runtime | None = None,
        limits: SandboxLimits = SandboxLimits(),  # noqa: B008 (frozen value object)
        require_layers: frozenset[str] = frozenset(),
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        watch: bool = False,
        executor: Executor | str | None = None,
        ray_address: str | None = None,
        approval: str | None = None,
        signer: Signer | None = None,
        approver: str | None = None,
        pool_size: int = 2,
        capabilities: CapabilityPolicy | str | os.PathLike[str] | None = None,
    ) -> None:
        # Checked first: a wrong executor name fails before anything is opened.
        self.executor: Executor = build_executor(executor, ray_address_=ray_address)
        self._owns_executor = executor is None or isinstance(executor, str)
        if isinstance(registry, Registry):
            if policy is not None and policy.digest != registry.policy.digest:
                raise ValueError("policy differs from the registry's policy")
            self.registry = registry
        else:
            self.registry = Registry.open(registry, policy, lazy=True)
        self.policy = self.registry.policy
        self.limits = limits
        from dyntools.sandbox.limits import LAYERS

        unknown = sorted(set(require_layers) - set(LAYERS))
        if unknown:
            raise UsageError(f"unknown sandbox layer(s) {', '.join(unknown)}; known: "
                             f"{', '.join(LAYERS)}")
        self.require_layers = frozenset(require_layers)
        self.max_attempts = max_attempts
        # The approval policy: the registry's, made stricter (never looser) by `approval`.
        self.approval = stricter(self.registry.approval,
                                 check_policy(approval) if approval is not None else None)
        self.signer = signer
        self.approver = approver
        self._generator = generator
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
            raise UsageError(f"pool_size must be a whole number of at least 1, got {pool_size!r}")
        self.pool_size = pool_size
        self._runtime = runtime
        self._watch = watch
        self._lock = threading.Lock()
        self._name_locks: dict[str, threading.Lock] = {}
        # The operator's capability policy: `capabilities`, else DYNTOOLS_CAPABILITIES, else
        # none (nothing granted). A version's CAPABILITIES are granted only within it.
        self.capabilities = CapabilityHost(_capability_policy(capabilities))
        self._metadata: dict[tuple[str, int, str], ToolMetadata] = {}
        self._checks: dict[tuple[str, int, str], Callable[[Any], None]] = {}
        if watch and runtime is None:
            _ = self.runtime

    # ------------------------------------------------------------------------------ ensure

    @property
    def audit_path(self) -> Path:
        """Where the CLI writes the audit log: `<registry>/audit.log`."""
        return self.registry.root / AUDIT_FILE

    @property
    def generator(self) -> Generator:
        if self._generator is None:
            from dyntools.generators.offline import OfflineGenerator

            self._generator = OfflineGenerator()
        return self._generator

    def ensure(
        self,
        spec: ToolSpec | str,
        *,
        description: str = "",
        params: Mapping[str, Any] | None = None,
        examples: Sequence[Mapping[str, Any]] = (),
        generator: Generator | None = None,
        new_version: bool = False,
        contract_change: bool = False,
        on_station: StationListener | None = None,
        require_approval: bool = False,
        tools: ToolSource | None = None,
    ) -> EnsureResult:
        """Make sure `spec.name` has a current, verified version; generate one if not.

        With `new_version`, a new version is generated even when one exists; it must also
        pass the examples the current version passed unless `contract_change` is set.
        Caller examples given for an existing tool are checked against its current version.
        When the approval policy (or `require_approval`) holds a verified version back, it is
        persisted as pending and the result's `pending` is true; a tool whose newest version
        is pending (and none is current) is returned as such without generating again.
        `tools` is where a capability tool's `host.call_tool` finds the tools it composes
        during verification (the Catalog passes itself; default: this registry).
        Raises a `DyntoolsError` leaf naming the station that failed.
        """
        from dyntools.generators.base import ToolSpec
        from dyntools.verify import collect_examples

        if isinstance(spec, str):
            spec = ToolSpec(spec, description, params, tuple(examples))
        elif not isinstance(spec, ToolSpec):
            raise UsageError(f"ensure takes a tool name or a ToolSpec, got {type(spec).__name__}")
        elif description or params is not None or examples:
            raise ValueError("pass description/params/examples inside the ToolSpec")
        if contract_change and not new_version:
            raise UsageError("contract_change only applies to a new version: pass "
                             "new_version=True as well")
        caller_examples = collect_examples(caller=spec.examples)  # bad examples fail first
        if spec.params is not None:
            params_validator(spec.params)
        recorder = _Recorder(spec.name, on_station)
        approval = stricter(self.approval, "always" if require_approval else None)
        with self._name_lock(spec.name):
            with recorder.station(LOOKUP) as found:
                with contextlib.suppress(UnknownTool):
                    self.registry.refresh(spec.name)
                current = self.registry.current(spec.name)
                recorder.version = current.version if current is not None else None
                waiting = self.pending_version(spec.name) if current is None else None
                if waiting is not None and not new_version:
                    recorder.version = waiting.version
                    found.outcome = PENDING
                    found.detail = (f"v{waiting.version} is pending approval (nothing "
                                    f"generated): {approve_command(spec.name, waiting.version)}")
                elif current is None:
                    found.outcome = "miss"
                    found.detail = (
                        "no usable version (rejected or quarantined): generating"
                        if self.registry.versions(spec.name) else
                        "not in the registry: generating"
                    )
                elif new_version:
                    found.outcome = "new_version"
                    found.detail = f"v{current.version} is current; a new version was asked for"
                else:
                    found.outcome = "hit"
                    found.detail = f"v{current.version} served from the registry (no generation)"
            if waiting is not None and not new_version:
                return EnsureResult(self._tool(waiting), waiting, False, tuple(recorder.events))
            if current is not None and not new_version:
                return self._existing(current, caller_examples, recorder, tools)
            problem = self.registry.writable_problem(spec.name)
            if (problem is None and self.registry.trusted_keys is not None
                    and self.signer is None and not needs_approval(approval)):
                # It would be persisted approved but unsigned, and refused at once.
                problem = ("trusted keys are configured, so a new version must be signed "
                           "(--sign-key / DYNTOOLS_SIGNING_KEY) or held for a reviewer "
                           "(--require-approval)")
            if problem is not None:
                # Before generating: a read-only registry must not cost a model call.
                raise PersistError(f"cannot create {spec.name}: {problem}", tool=spec.name)
            return self._create(spec, caller_examples, generator or self.generator,
                                contract_change, recorder, approval, tools)

    def _existing(self, record: VersionRecord, caller_examples: tuple[Example, ...],
                  recorder: _Recorder, tools: ToolSource | None = None) -> EnsureResult:
        """The tool is there: no generation; caller examples are checked against it."""
        from dyntools.verify import run_examples

        report = None
        if caller_examples:
            with recorder.station("verify") as verdict:
                runtime = self.runtime

                def call(params: dict[str, Any], host: Any = None) -> dict[str, Any]:
                    self._params_check(record)(params)
                    return runtime.call(record.name, params, host=host)

                report = run_examples(call, caller_examples, tool=record.name,
                                      host_for=self._replay_hosts(record.name, record.version,
                                                                  self._declared_by(record),
                                                                  tools))
                verdict.detail = report.summary()
                if not report.passed:
                    raise VerificationFailed(
                        f"the current version of {record.name} (v{record.version}) does not "
                        f"pass the given examples: {report.summary()}. Use --new-version to "
                        "generate one that does.",
                        tool=record.name, version=record.version,
                        verification=report.as_dict(),
                    )
        return EnsureResult(self._tool(record), record, False, tuple(recorder.events), report)

    def _create(
        self,
        spec: ToolSpec,
        caller_examples: tuple[Example, ...],
        generator: Generator,
        contract_change: bool,
        recorder: _Recorder,
        approval: str = "never",
        tools: ToolSource | None = None,
    ) -> EnsureResult:
        from dyntools.verify import collect_examples, run_examples

        recorder.version = None  # until the new version has its number in the registry
        gated = self._generate_and_gate(spec, generator, recorder)
        source = gated.generated.source
        # What the gate read: the file is parsed once, by the gate (and by the sandbox's own
        # transform), never again here.
        meta = _metadata_of(gated.report)
        candidate = max((r.version for r in self.registry.versions(spec.name)), default=0) + 1
        contract = () if contract_change else self._contract_examples(spec.name)
        examples = collect_examples(meta.examples, caller_examples, contract)
        provenance: dict[str, Any] = gated.generated.as_provenance()
        if spec.description:
            provenance["description_requested"] = spec.description
        if contract_change:
            provenance["contract_change"] = True
        try:
            with recorder.station("load") as loaded:
                pool = self._open_pool(spec.name, candidate, source)
                loaded.detail = f"compiled in a sandbox worker (as v{candidate})"
        except LoadError as exc:
            record = self._persist(spec.name, source, gated.report, provenance, recorder,
                                   rejected=f"compile_error: {exc.message}")
            exc.details.update(tool=spec.name, version=record.version, persisted=REJECTED)
            raise
        except SandboxError as exc:  # a worker that could not start: not the version's fault
            exc.details.update(tool=spec.name, during="load", persisted=None)
            raise
        adopted = False
        try:
            with recorder.station("verify") as verdict:
                report = run_examples(
                    _pool_call(pool), examples, tool=spec.name,
                    check=params_check(meta.params, spec.name),
                    host_for=self._replay_hosts(spec.name, candidate, meta.capabilities,
                                                tools))
                verdict.detail = report.summary()
                if not report.passed:
                    verdict.outcome, verdict.reason = FAILED, VerificationFailed.reason
                elif not examples:
                    verdict.reason = "no_examples"
            provenance["verification"] = {"examples": report.passed_examples,
                                          "counts": report.counts()}
            if not report.passed:
                record = self._persist(spec.name, source, gated.report, provenance, recorder,
                                       rejected=f"verification_failed: {report.summary()}")
                raise VerificationFailed(
                    f"{spec.name} v{record.version} failed verification and was persisted as "
                    f"rejected (never current): {report.summary()}",
                    tool=spec.name, version=record.version, verification=report.as_dict(),
                )
            previous = self.registry.current(spec.name)
            if needs_approval(approval, meta.capabilities, self._declared_by(previous)
                              if previous is not None else None):
                record = self._persist(spec.name, source, gated.report, provenance, recorder,
                                       pending=f"awaiting approval (policy: {approval})")
                recorder.done("activate", PENDING, 0.0,
                              detail=f"not served until a reviewer approves it: "
                                     f"{approve_command(spec.name, record.version)}")
                return EnsureResult(self._tool(record), record, True, tuple(recorder.events),
                                    report)
            record = self._persist(spec.name, source, gated.report, provenance, recorder)
            with recorder.station("activate") as activated:
                record, adopted = self._activate(record, pool if record.version == candidate
                                                 else None)
                activated.detail = (f"v{previous.version} -> v{record.version}" if previous
                                    else f"v{record.version} is current")
        finally:
            if not adopted:
                pool.close(wait=True)
        return EnsureResult(self._tool(record), record, True, tuple(recorder.events), report)

    def _activate(self, record: VersionRecord, pool: Any) -> tuple[VersionRecord, bool]:
        """Hand the persisted version to the runtime; True when it adopted `pool`."""
        current = self.registry.current(record.name)
        if current is None or current.version != record.version:
            raise RegistryError(
                f"{record.name} v{record.version} was persisted but is not current "
                f"(current: {current.version if current else None}); see dyntools review",
                tool=record.name, version=record.version,
            )
        # The verified worker already holds exactly these bytes: it takes the first calls,
        # so a new tool's first call is warm. Otherwise the runtime starts a pool of its own.
        runtime = self.runtime
        if pool is not None and runtime.adopt(current, pool):
            return current, True
        runtime.load(record.name)
        return current, False

    def _generate_and_gate(self, spec: ToolSpec, generator: Generator,
                           recorder: _Recorder) -> GatedSource:
        from dyntools.generators.loop import generate_gated

        gate_ms: list[float] = []

        def gate(source: str) -> GateReport:
            started = time.perf_counter()
            try:
                return check_source(source, self.policy, path=f"<{generator.id}:{spec.name}>",
                                    expected_name=spec.name)
            finally:
                gate_ms.append(_ms(started))

        recorder.emit(StationEvent(spec.name, "generate", RUNNING))
        started = time.perf_counter()
        gated: GatedSource | None = None
        rejection: GateRejected | None = None
        label = generator.id + (f" ({generator.model})" if generator.model else "")
        try:
            gated = generate_gated(generator, spec, gate=gate, max_attempts=self.max_attempts)
        except GateRejected as exc:  # generation worked; the gate said no
            rejection = exc
        except DyntoolsError as exc:
            recorder.done("generate", FAILED, _ms(started) - sum(gate_ms), reason=exc.reason,
                          detail=exc.message)
            raise
        except BaseException as exc:
            recorder.done("generate", FAILED, _ms(started) - sum(gate_ms),
                          reason="internal_error", detail=repr(exc))
            raise
        # The retry loop's gate checks are the gate's time, not the generator's.
        attempts = gated.generated.attempts if gated else len(gate_ms)
        recorder.done("generate", OK, _ms(started) - sum(gate_ms),
                      detail=f"{label}, {attempts} attempt(s)")
        recorder.emit(StationEvent(spec.name, "gate", RUNNING))
        last_ms = gate_ms[-1] if gate_ms else 0.0
        if rejection is not None:
            codes = ", ".join(sorted(rejection.report.codes))
            recorder.done("gate", "rejected", last_ms, reason=rejection.reason,
                          detail=f"{len(rejection.report.findings)} finding(s): {codes}; "
                          "nothing was written")
            raise rejection
        assert gated is not None
        recorder.done("gate", "accepted", last_ms,
                      detail=f"sha256 {gated.report.sha256[:12]}")
        return gated

    def _persist(
        self,
        name: str,
        source: str,
        report: GateReport,
        provenance: dict[str, Any],
        recorder: _Recorder,
        *,
        rejected: str | None = None,
        pending: str | None = None,
    ) -> VersionRecord:
        """Write the version with its verdict: approved, rejected or pending with a reason."""
        status = REJECTED if rejected else PENDING if pending else APPROVED
        signer = self.signer if status == APPROVED else None
        decision = ({"action": "ensure", "by": self.approver or _approver(),
                     "reason": "verified by ensure"} if signer is not None else None)
        with recorder.station("persist") as persisted:
            # An approved version moves the pointer in the same durable commit that records
            # it: verification is already behind it, so there is nothing left to wait for.
            record = self.registry.add_version(
                name, source, provenance, activate=status == APPROVED,
                status=status, reason=rejected or pending, report=report,
                decision=decision, signer=signer,
            )
            recorder.version = record.version
            persisted.outcome = record.status
            metadata = report.metadata  # the gate's reading of exactly these bytes
            if metadata is not None:
                self._remember_meta(record, metadata)
            persisted.detail = f"{record.path.name} sha256 {record.sha256[:12]}"
        return record

    def _open_pool(self, name: str, version: int, source: str) -> Any:
        from dyntools.sandbox import WorkerPool

        pool = WorkerPool(
            self.registry.path_of(name, version),
            module_name=module_name_for(name, version),
            policy=self.policy,
            limits=self.limits,
            size=1,
            require_layers=self.require_layers,
            source=source,
        )
        try:
            pool.start()
        except BaseException:
            pool.close(wait=True)
            raise
        return pool

    def _contract_examples(self, name: str) -> tuple[Example, ...]:
        """What the current version promised: the examples it passed when it was verified
        (or, for a version added by hand, the EXAMPLES it declares)."""
        from dyntools.verify import CONTRACT, Example

        current = self.registry.current(name)
        if current is None:
            return ()
        verification = current.provenance.get("verification")
        values: Any = None
        if isinstance(verification, Mapping):
            values = verification.get("examples")
        if not isinstance(values, list):
            values = self._meta(current).examples
        return tuple(Example.parse(v, CONTRACT) for v in values)

    def pending_version(self, name: str) -> VersionRecord | None:
        """The newest pending version of `name` newer than its current one, or None."""
        current = self.registry.current(name)
        for record in self.registry.versions(name)[::-1]:
            if current is not None and record.version <= current.version:
                return None
            if record.status == PENDING:
                return record
        return None

    def pending(self) -> list[VersionRecord]:
        """Every version awaiting a reviewer's decision, by tool then version."""
        return [record for state in self.registry.tools()
                for _, record in sorted(state.records.items()) if record.status == PENDING]

    # ---------------------------------------------------------------------------- approval

    def verify_source(
        self,
        name: str,
        version: int,
        source: str,
        caller_examples: Sequence[Mapping[str, Any]] = (),
        *,
        contract_change: bool = False,
        tools: ToolSource | None = None,
        metadata: ToolMetadata | None = None,
    ) -> VerificationReport:
        """Run what `ensure` runs before a version may become current: the file's EXAMPLES,
        the caller's examples and (unless `contract_change`) the examples the current version
        passed, in a sandbox worker holding exactly `source`. `metadata`: what the gate read
        from `source` (its report's), so it is not parsed again."""
        from dyntools.verify import collect_examples, run_examples

        meta = metadata if metadata is not None else read_metadata(source)
        contract = () if contract_change else self._contract_examples(name)
        examples = collect_examples(meta.examples, collect_examples(caller=caller_examples),
                                    contract)
        pool = self._open_pool(name, version, source)
        try:
            return run_examples(_pool_call(pool), examples, tool=name,
                                check=params_check(meta.params, name),
                                host_for=self._replay_hosts(name, version, meta.capabilities,
                                                            tools))
        finally:
            pool.close(wait=True)

    def approve(
        self,
        name: str,
        version: int | None = None,
        *,
        source: bytes | None = None,
        examples: Sequence[Mapping[str, Any]] = (),
        contract_change: bool = False,
        by: str | None = None,
        reason: str | None = None,
        activate: bool = True,
        provenance: Mapping[str, Any] | None = None,
        expected_sha256: str | None = None,
    ) -> tuple[VersionRecord, VerificationReport]:
        """A reviewer's approval, verified exactly as `ensure` verifies.

        `version` names a pending version or a dropped-in `vN.py`; `source` instead adds
        those bytes as a new version. The file's EXAMPLES, `examples` and the current
        version's contract (unless `contract_change`) run in the sandbox first; on a failure
        nothing becomes current, the version is recorded as rejected with the failing
        example, and VerificationFailed is raised. Signs with `self.signer` when set.
        `expected_sha256`: the SHA-256 of the bytes the reviewer read; a file that holds
        anything else now is refused (UsageError) before it is verified."""
        if (version is None) == (source is None):
            raise UsageError("approve takes either a version or a source")
        by = by or self.approver or _approver()
        decision = {"action": "approve", "by": by, "reason": reason}
        get_logger("pipeline").info("pipeline.approve_started", tool=name, version=version)
        with self._name_lock(name):
            with contextlib.suppress(UnknownTool):
                self.registry.refresh(name)
            if source is not None:
                return self._approve_new(name, source, examples, contract_change, decision,
                                         activate, provenance)
            assert version is not None
            state = self.registry.tool(name) if name in self.registry.names() else None
            existing = state.records.get(version) if state is not None else None
            if existing is not None and existing.status != PENDING:
                hint = (f"; dyntools activate {name} {version} makes it current"
                        if existing.usable else "")
                raise UsageError(f"{name} v{version} is {existing.status}, not pending or "
                                 f"dropped in: there is nothing to approve{hint}",
                                 tool=name, version=version)
            data = (self.registry.read_recorded(name, version) if existing is not None
                    else self.registry.read_unrecorded(name, version))
            if expected_sha256 is not None and _sha256(data) != expected_sha256:
                raise UsageError(
                    f"{name} v{version} changed since the page showed it (SHA-256 "
                    f"{_sha256(data)[:12]} now, {expected_sha256[:12]} shown): nothing was "
                    "approved; read it again", tool=name, version=version)
            gated = self._gated(name, data)
            report = self.verify_source(name, version, data.decode("utf-8"), examples,
                                        contract_change=contract_change,
                                        metadata=gated.metadata)
            failure = None if report.passed else f"verification_failed: {report.summary()}"
            if existing is not None:
                record = (self.registry.decide(name, version, "approve", by=by, reason=reason,
                                               activate=activate, signer=self.signer)
                          if failure is None else
                          self.registry.decide(name, version, "reject", by=by, reason=failure))
            else:
                record = self.registry.approve(
                    name, version, provenance, activate=activate,
                    status=APPROVED if failure is None else REJECTED, reason=failure,
                    expected_sha256=_sha256(data),
                    decision=decision if failure is None else {**decision, "reason": failure},
                    signer=self.signer if failure is None else None)
            if gated.metadata is not None:
                self._remember_meta(record, gated.metadata)
            self._raise_if_failed(record, report)
            return record, report

    def _approve_new(self, name: str, data: bytes, examples: Sequence[Mapping[str, Any]],
                     contract_change: bool, decision: dict[str, Any], activate: bool,
                     provenance: Mapping[str, Any] | None) -> tuple[VersionRecord,
                                                                     VerificationReport]:
        gated = self._gated(name, data)
        candidate = max((r.version for r in self.registry.versions(name)), default=0) + 1
        report = self.verify_source(name, candidate, data.decode("utf-8"), examples,
                                    contract_change=contract_change, metadata=gated.metadata)
        prov: dict[str, Any] = {"generator": "manual", **(provenance or {}),
                                "verification": {"examples": report.passed_examples,
                                                 "counts": report.counts()}}
        if contract_change:
            prov["contract_change"] = True
        if report.passed:
            record = self.registry.add_version(name, data, prov, activate=activate,
                                               decision=decision, signer=self.signer,
                                               report=gated)
        else:
            failure = f"verification_failed: {report.summary()}"
            record = self.registry.add_version(name, data, prov, status=REJECTED,
                                               reason=failure,
                                               decision={**decision, "action": "reject",
                                                         "reason": failure},
                                               report=gated)
        if gated.metadata is not None:
            self._remember_meta(record, gated.metadata)
        self._raise_if_failed(record, report)
        return record, report

    def _gated(self, name: str, data: bytes) -> GateReport:
        report = check_source(data, self.policy, path=f"{name}/{name}.py")
        if not report.accepted:
            raise GateRejected(report)
        return report

    @staticmethod
    def _raise_if_failed(record: VersionRecord, report: VerificationReport) -> None:
        if report.passed:
            return
        raise VerificationFailed(
            f"{record.name} v{record.version} failed verification and was recorded as "
            f"rejected (nothing became current): {report.summary()}",
            tool=record.name, version=record.version, verification=report.as_dict(),
            persisted=REJECTED,
        )

    @contextlib.contextmanager
    def _name_lock(self, name: str) -> Iterator[None]:
        with self._lock:
            lock = self._name_locks.setdefault(name, threading.Lock())
        with lock:
            yield

    # -------------------------------------------------------------------------------- calls

    def call(self, name: str, params: dict[str, Any], *,
             timeout: float | None = None, tools: ToolSource | None = None,
             chain: tuple[str, ...] = (), read_only: bool = False) -> dict[str, Any]:
        """Run the current version of `name` in the sandbox (one audit event per call).

        A version that declares CAPABILITIES gets a host for its requests: HTTP through the
        broker under the operator's policy, `host.call_tool` through `tools` (the Catalog
        passes itself; default: this registry); `chain` lists the tools already waiting on
        this call (composition depth and cycles). With `read_only` (a tool composed while
        another is verified) its HTTP requests may only GET, and so may what it composes.
        No secret leaves in the result or error."""
        started = time.perf_counter()
        record = self.registry.current(name)
        version = record.version if record is not None else None
        try:
            if record is None:
                if name not in self.registry.names():
                    raise UnknownTool(f"unknown tool {name!r} in registry {self.registry.root}",
                                      tool=name)
                waiting = self.pending_version(name)
                if waiting is not None:
                    version = waiting.version
                    raise PendingApproval(
                        f"tool {name!r} v{waiting.version} is pending approval and is not "
                        f"served until a reviewer approves it: "
                        f"{approve_command(name, waiting.version)}",
                        tool=name, version=waiting.version,
                        approve_command=approve_command(name, waiting.version))
                raise VersionUnusable(f"tool {name!r} has no usable version (quarantined, "
                                      "rejected, or none is current)", tool=name)
            self._params_check(record)(params)
            hosts: list[HostCalls] = []

            def prepare(used: VersionRecord) -> HostCalls | None:
                # The version the runtime checked out, which may be newer than `record`.
                if used.version != record.version or used.sha256 != record.sha256:
                    self._params_check(used)(params)
                declared = self._declared_by(used)
                if not declared:
                    return None
                host = self.capabilities.live(
                    tool=name, version=used.version, declared=declared,
                    tools=self._composer(tools, read_only=read_only), chain=chain,
                    read_only=read_only)
                hosts.append(host)
                return host

            try:
                result = self.runtime.call(name, params, timeout, prepare=prepare)
            except DyntoolsError as exc:
                for host in hosts:
                    exc.message = host.redact(exc.message)
                    exc.args = (exc.message,)
                    exc.details = host.redact(exc.details)
                raise
            for host in hosts:
                result = host.redact(result)
        except DyntoolsError as exc:
            _log_execute(name, version, started, FAILED, exc.reason, exc.message)
            raise
        _log_execute(name, version, started, OK, None, None)
        return result

    def tool(self, name: str) -> Tool | None:
        """The current version of `name` as callers see it, or None."""
        record = self.registry.current(name)
        return self._tool(record) if record is not None else None

    def tools(self) -> list[Tool]:
        """Every registry tool with a usable current version."""
        tools = []
        for state in self.registry.tools():
            record = state.current_record
            if record is None:
                continue
            try:
                tools.append(self._tool(record))
            except VersionUnusable:
                continue  # edited on disk: the registry has quarantined it and logged why
        return tools

    def subscribe(self, listener: Callable[[str], None]) -> None:
        """`listener(tool_name)` after any change to a tool in the registry."""
        self.registry.subscribe(listener)

    def _tool(self, record: VersionRecord) -> Tool:
        meta = self._meta(record)
        return Tool(record.name, meta.description, meta.params, REGISTRY, record.version)

    def _params_check(self, record: VersionRecord) -> Callable[[Any], None]:
        key = (record.name, record.version, record.sha256)
        check = self._checks.get(key)
        if check is None:
            check = params_check(self._meta(record).params, record.name)
            self._checks[key] = check
        return check

    def _remember_meta(self, record: VersionRecord, meta: ToolMetadata) -> None:
        """The gate's reading of a version this process just persisted (its bytes are the
        ones gated), so serving it needs no second parse."""
        self._metadata[(record.name, record.version, record.sha256)] = meta

    def _meta(self, record: VersionRecord) -> ToolMetadata:
        key = (record.name, record.version, record.sha256)
        meta = self._metadata.get(key)
        if meta is None:
            data = (self.registry.verified_source(record.name, record.version)
                    if record.usable else self.registry.read_recorded(record.name,
                                                                      record.version))
            meta = read_metadata(data)
            self._metadata[key] = meta
        return meta

    def _declared_by(self, record: VersionRecord) -> Capabilities:
        """What the version declares in CAPABILITIES (from its cached metadata)."""
        return self._meta(record).capabilities

    def _composer(self, tools: ToolSource | None, *, read_only: bool = False) -> ToolCaller:
        """How `host.call_tool` reaches a composed tool: through `tools` (a Catalog), else
        this registry; the composed call inherits the remaining budget, the chain and
        `read_only` (verification: what it composes may read the world, never act on it)."""
        source = tools if tools is not None else self

        def compose(name: str, params: dict[str, Any], timeout: float,
                    chain: tuple[str, ...]) -> dict[str, Any]:
            return source.call(name, params, timeout=timeout, chain=chain, read_only=read_only)

        return compose

    def _replay_hosts(self, name: str, version: int, declared: Capabilities,
                      tools: ToolSource | None) -> HostFor | None:
        """Verification's hosts: each example's recorded exchanges, the real catalog."""
        if not declared:
            return None
        return self.capabilities.replaying(tool=name, version=version, declared=declared,
                                           tools=self._composer(tools, read_only=True))

    @property
    def runtime(self) -> Runtime:
        """The warm runtime calls go through (created on first use): one worker pool per tool
        version, swapped when the current version changes. Its `describe()` shows the
        active versions and their calls in flight; `close()` here closes it."""
        with self._lock:
            if self._runtime is None:
                self._runtime = Runtime(self.registry, limits=self.limits,
                                        require_layers=self.require_layers, watch=self._watch,
                                        executor=self.executor, pool_size=self.pool_size)
            return self._runtime

    # ---------------------------------------------------------------------------- lifecycle

    def close(self) -> None:
        with self._lock:
            runtime, self._runtime = self._runtime, None
        if runtime is not None:
            runtime.close()
        self.capabilities.close()
        if self._owns_executor:
            self.executor.close()

    def __enter__(self) -> Dyntools:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _metadata_of(report: GateReport) -> ToolMetadata:
    """An accepted report's metadata (the gate sets it on every accepted report)."""
    metadata = report.metadata
    if metadata is None:
        raise GateRejected(report, "the gate's report carries no metadata")
    return metadata


def approve_command(name: str, version: int) -> str:
    """The command a reviewer runs to approve a pending version."""
    return f"dyntools approve {name} {version}"


def _approver() -> str:
    from dyntools.registry.core import default_approver

    return default_approver()


def _sha256(data: bytes) -> str:
    from dyntools.findings import sha256_hex

    return sha256_hex(data)


def _log_execute(name: str, version: int | None, started: float, outcome: str,
                 reason: str | None, detail: str | None) -> None:
    get_logger("pipeline").info(
        AUDIT_EVENT, tool=name, version=version, station=EXECUTE,
        duration_ms=round(_ms(started), 3), outcome=outcome, reason=reason, detail=detail,
    )


class ToolSource(Protocol):
    """Where `host.call_tool` finds tools: a Catalog, or a Dyntools (its registry)."""

    def call(self, name: str, params: dict[str, Any], *, timeout: float | None = None,
             chain: tuple[str, ...] = (), read_only: bool = False) -> dict[str, Any]: ...


def _pool_call(pool: Any) -> Callable[..., dict[str, Any]]:
    """A verification pool's call, with a capability tool's replaying host when given."""
    def call(params: dict[str, Any], host: Any = None) -> dict[str, Any]:
        result: dict[str, Any] = pool.call(params) if host is None else \
            pool.call(params, host=host)
        return result

    return call


def _capability_policy(value: CapabilityPolicy | str | os.PathLike[str] | None,
                       ) -> CapabilityPolicy | None:
    """The operator's policy from an object, a path, or DYNTOOLS_CAPABILITIES; None when
    none is given (checked without importing the broker)."""
    if value is None and not os.environ.get(ENV_CAPABILITIES):
        return None
    from dyntools.capabilities import CapabilityPolicy, resolve_capability_policy

    if isinstance(value, CapabilityPolicy):
        return value
    return resolve_capability_policy(os.fspath(value) if value is not None else None)
