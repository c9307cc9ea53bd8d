"""`ensure`: make sure a tool has a current, verified version, generating one if not.

    generate -> gate -> load -> verify -> persist -> activate

(The stations are described in dyntools/pipeline/__init__.py.)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from dyntools.errors import (
    DyntoolsError,
    GateRejected,
    LoadError,
    PersistError,
    RegistryError,
    SandboxError,
    UnknownTool,
    UsageError,
    VerificationFailed,
)
from dyntools.gate import check_source
from dyntools.gate.findings import GateReport
from dyntools.pipeline.core import PipelineCore, ToolSource, approver_name, pool_call
from dyntools.pipeline.events import (
    FAILED,
    LOOKUP,
    OK,
    RUNNING,
    Recorder,
    StationEvent,
    StationListener,
    approve_command_for,
    ms_since,
)
from dyntools.pipeline.toolmeta import (
    Tool,
    ToolMetadata,
    params_check,
    params_validator,
)
from dyntools.registry.config import (
    needs_approval,
    stricter,
)
from dyntools.registry.manifest import APPROVED, PENDING, REJECTED
from dyntools.registry.records import VersionRecord

if TYPE_CHECKING:
    from dyntools.generators.base import Generator, ToolSpec
    from dyntools.generators.loop import GatedSource
    from dyntools.pipeline.verify import Example, VerificationReport


class _MadeVersion(Protocol):
    @property
    def tool(self) -> Tool: ...

    @property
    def record(self) -> VersionRecord: ...


class VersionOutcome:
    """What a result that made a version (ensure, repair) says of it, from its `tool` and
    `record` fields."""

    __slots__ = ()

    @property
    def name(self: _MadeVersion) -> str:
        return self.tool.name

    @property
    def version(self: _MadeVersion) -> int:
        return self.record.version

    @property
    def pending(self: _MadeVersion) -> bool:
        """Verified, persisted, and waiting for a reviewer: not served until approved."""
        return self.record.status == PENDING

    @property
    def approve_command(self: _MadeVersion) -> str:
        return approve_command_for(self.record)


class _EnsureFields(NamedTuple):
    tool: Tool
    record: VersionRecord
    created: bool
    stations: tuple[StationEvent, ...]
    verification: VerificationReport | None = None


class EnsureResult(_EnsureFields, VersionOutcome):
    """The tool as callers see it, the registry record behind it, and how it got there."""

    __slots__ = ()

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


class Ensuring(PipelineCore):
    """`Dyntools.ensure` and its stations."""

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
        provenance: Mapping[str, Any] | None = None,
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
        `provenance`: more fields for a generated version's record (`record` says where its
        example came from).
        Raises a `DyntoolsError` leaf naming the station that failed.
        """
        from dyntools.generators.base import ToolSpec
        from dyntools.pipeline.verify import collect_examples

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
        recorder = Recorder(spec.name, on_station)
        approval = stricter(self.approval, "always" if require_approval else None)
        with self._name_lock(spec.name):
            with contextlib.suppress(UnknownTool):
                self.registry.refresh(spec.name)
            target = self.registry.alias_of(spec.name)
            if target is not None:
                return self._aliased(spec, target, new_version, caller_examples, recorder,
                                     tools)
            with recorder.station(LOOKUP) as found:
                current = self.registry.current(spec.name)
                refusal = self.registry.refusal(spec.name) if current is None else None
                if refusal is not None:
                    # With trusted keys the chain does not vouch for what the manifest
                    # serves: settle that first; a new version would paper over it.
                    raise refusal
                recorder.version = current.version if current is not None else None
                waiting = self.pending_version(spec.name) if current is None else None
                if waiting is not None and not new_version:
                    recorder.version = waiting.version
                    found.outcome = PENDING
                    found.detail = (f"v{waiting.version} is pending approval (nothing "
                                    f"generated): {approve_command_for(waiting)}")
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
            approval = self._contract_change_approval(spec.name, approval,
                                                      contract_change and current is not None)
            problem = self.registry.writable_problem(spec.name)
            if problem is None and not needs_approval(approval):
                # Activating it is a decision: with trusted keys, one of them signs it. Said
                # before generating, so a refused decision costs no model call.
                from dyntools.registry.chainwrite import require_key

                require_key(self.registry.trusted_keys, self.signer,
                            f"activating a new version of {spec.name} (or hold it for a "
                            "reviewer: --require-approval)", spec.name)
            if problem is not None:
                # Before generating: a read-only registry must not cost a model call.
                raise PersistError(f"cannot create {spec.name}: {problem}", tool=spec.name)
            return self._create(spec, caller_examples, generator or self.generator,
                                contract_change, recorder, approval, tools, provenance)

    def _aliased(self, spec: ToolSpec, target: str, new_version: bool,
                 caller_examples: tuple[Example, ...], recorder: Recorder,
                 tools: ToolSource | None) -> EnsureResult:
        """`spec.name` is an alias: the tool it serves, as it is (the alias has no versions of
        its own to add to)."""
        if new_version:
            raise UsageError(f"{spec.name} is an alias of {target}: a new version goes to "
                             f"{target} (dyntools ensure {target} --new-version), or remove "
                             f"the alias first (dyntools unalias {spec.name})",
                             tool=spec.name, alias_of=target)
        with recorder.station(LOOKUP) as found:
            current = self.registry.current(target)
            if current is None:
                raise self.registry.refusal(target) or UnknownTool(
                    f"{spec.name} is an alias of {target}, which serves no version",
                    tool=spec.name, alias_of=target)
            recorder.version = current.version
            found.outcome = "hit"
            found.detail = (f"an alias of {target}: v{current.version} served (no "
                            "generation)")
        return self._existing(current, caller_examples, recorder, tools)

    def _contract_change_approval(self, name: str, approval: str, changing: bool) -> str:
        """The approval policy of a new version of `name` (`changing`: with a contract change
        of a tool that has a current version). The counterexamples in force
        came from repairs a reviewer approved (or the operator allowed): a contract change
        that drops them waits for a reviewer in turn, unless this object allows unreviewed
        repairs, or an agent could undo a reviewed repair on its own."""
        from dyntools.pipeline.contract import counterexamples, signed_digests

        if not changing or self.allow_unreviewed_repairs:
            return approval
        state = self.registry.tool(name)
        if counterexamples(state) or signed_digests(state):
            return stricter(approval, "always")
        return approval

    def _existing(self, record: VersionRecord, caller_examples: tuple[Example, ...],
                  recorder: Recorder, tools: ToolSource | None = None) -> EnsureResult:
        """The tool is there: no generation; caller examples are checked against it."""
        from dyntools.pipeline.verify import run_examples

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
        recorder: Recorder,
        approval: str = "never",
        tools: ToolSource | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> EnsureResult:
        from dyntools.pipeline.verify import collect_examples, run_examples

        recorder.version = None  # until the new version has its number in the registry
        gated = self._generate_and_gate(spec, generator, recorder)
        source = gated.generated.source
        # What the gate read: the file is parsed once, by the gate (and by the sandbox's own
        # transform), never again here.
        meta = metadata_of(gated.report)
        candidate = max((r.version for r in self.registry.versions(spec.name)), default=0) + 1
        contract = () if contract_change else self._contract_examples(spec.name)
        examples = collect_examples(meta.examples, caller_examples, contract)
        provenance = {**_provenance(spec, gated, contract_change), **(extra or {})}
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
                    pool_call(pool), examples, tool=spec.name,
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
                                     f"{approve_command_for(record)}")
                return EnsureResult(self._tool(record), record, True, tuple(recorder.events),
                                    report)
            record = self._persist(spec.name, source, gated.report, provenance, recorder,
                                   contract_change=contract_change)
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
                           recorder: Recorder) -> GatedSource:
        from dyntools.generators.loop import generate_gated

        gate_ms: list[float] = []

        def gate(source: str) -> GateReport:
            started = time.perf_counter()
            try:
                return check_source(source, self.policy, path=f"<{generator.id}:{spec.name}>",
                                    expected_name=spec.name)
            finally:
                gate_ms.append(ms_since(started))

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
            recorder.done("generate", FAILED, ms_since(started) - sum(gate_ms), reason=exc.reason,
                          detail=exc.message)
            raise
        except BaseException as exc:
            recorder.done("generate", FAILED, ms_since(started) - sum(gate_ms),
                          reason="internal_error", detail=repr(exc))
            raise
        # The retry loop's gate checks are the gate's time, not the generator's.
        attempts = gated.generated.attempts if gated else len(gate_ms)
        recorder.done("generate", OK, ms_since(started) - sum(gate_ms),
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
        recorder: Recorder,
        *,
        rejected: str | None = None,
        pending: str | None = None,
        contract_change: bool = False,
    ) -> VersionRecord:
        """Write the version with its verdict: approved, rejected or pending with a reason."""
        status = REJECTED if rejected else PENDING if pending else APPROVED
        signer = self.signer if status == APPROVED else None
        decision = ({"action": "ensure", "by": self.approver or approver_name(),
                     "reason": "verified by ensure"} if signer is not None else None)
        if decision is not None and contract_change and name in self.registry.names():
            # A contract change drops the counterexamples the chain signed: said in the chain.
            from dyntools.pipeline.contract import contract_decision

            decision = contract_decision(decision, self.registry.tool(name), (), True)
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
            same = identical_versions(self.registry.versions(name), record)
            if same:
                persisted.detail += (f" (byte-identical to "
                                     f"{', '.join(f'v{v}' for v in same)})")
        return record


def _provenance(spec: ToolSpec, gated: GatedSource, contract_change: bool) -> dict[str, Any]:
    """Where a generated version came from, as its record keeps it."""
    provenance: dict[str, Any] = gated.generated.as_provenance()
    if gated.rejected:
        # What the model got wrong on the way, and what the gate said: for the reviewer (show,
        # the page, ensure's output), not only the audit log.
        from dyntools.generators.loop import earlier_attempts

        provenance["earlier_attempts"] = earlier_attempts(gated.rejected)
    if spec.description:
        provenance["description_requested"] = spec.description
    if contract_change:
        provenance["contract_change"] = True
    return provenance


def identical_versions(records: Sequence[VersionRecord], record: VersionRecord) -> list[int]:
    """The other versions holding exactly `record`'s bytes (a new version of the same code is
    kept, as every decision is, and said to be the same)."""
    return [r.version for r in records if r.sha256 == record.sha256 and r.version != record.version]


def metadata_of(report: GateReport) -> ToolMetadata:
    """An accepted report's metadata (the gate sets it on every accepted report)."""
    metadata = report.metadata
    if metadata is None:
        raise GateRejected(report, "the gate's report carries no metadata")
    return metadata
