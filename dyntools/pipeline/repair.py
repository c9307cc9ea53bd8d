"""Repair: a call that went wrong, plus the answer it should have given, becomes a
counterexample and a next version the generator writes with the failure in front of it.

    result = dt.repair("slugify_text", {"text": "a_b"}, {"slug": "a-b"}, reason="underscores")
    result.pending, result.record.version, result.as_dict()

The stations: lookup (the current version), reproduce (the counterexample runs on it in the
sandbox, as verification runs an example: it must fail there, or there is nothing to repair),
then per attempt generate -> gate -> load -> verify, then persist -> activate.

What the generator gets, on its first attempt: the current source, and the failure as
findings in the gate's shape (pipeline/failures.py: `LINE:COL: DR101 run({...}) returned
{...}; expected {...}`, or the runtime error at its line, or a runtime denial: a capability
refused, the time or memory limit), with the counterexample among the examples the tool
must reproduce. A gate rejection is fed back as the gate's findings; a verification that
fails, as the new failures; at most `max_attempts` attempts in all, and only while the
generator can use feedback (a file or a template hands back the same text: one attempt).

A new version must pass its own EXAMPLES, the counterexample and the whole inherited contract
(pipeline/contract.py, which holds earlier counterexamples too). It then follows the approval
policy: current, or pending. A repair asked for by an agent (the library, MCP) waits for a
reviewer unless the operator allows otherwise (`allow_unreviewed_repairs`): a counterexample
may come from a prompt-injected agent, and a repair changes the tool for every user. When no
attempt passes, `VerificationFailed` carries every attempt's findings and nothing is written
but the audit events: no rejected version is persisted.

The counterexample is recorded in the new version's provenance (`counterexamples`) and joins
the tool's contract when that version is approved; with a signing key the decision is a
`contract` record of the tool's decision chain (registry/chain.py).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from dyntools.base.log import get_logger
from dyntools.errors import (
    ContractContradiction,
    LoadError,
    NothingToRepair,
    PersistError,
    RepairsPending,
    UnknownTool,
    UsageError,
    VerificationFailed,
    VersionUnusable,
)
from dyntools.gate import check_source
from dyntools.gate.findings import Finding
from dyntools.pipeline.core import ToolSource, approver_name, pool_call
from dyntools.pipeline.ensure import Ensuring, VersionOutcome, metadata_of
from dyntools.pipeline.events import (
    FAILED,
    LOOKUP,
    Recorder,
    StationEvent,
    StationListener,
    approve_command,
    ms_since,
)
from dyntools.pipeline.toolmeta import Tool, params_check
from dyntools.registry.config import CAPABILITIES, needs_approval, stricter
from dyntools.registry.manifest import PENDING
from dyntools.registry.records import VersionRecord, require_valid_name

if TYPE_CHECKING:
    from dyntools.generators.base import Generator, ToolSpec
    from dyntools.pipeline.verify import Example, VerificationReport

REPRODUCE = "reproduce"
REPAIR_EVENT = "pipeline.repair"
MAX_COUNTEREXAMPLE_BYTES = 64 * 1024  # it is kept in the manifest, and named by the chain
MAX_REASON_CHARS = 4000  # a decision's reason, with "repaired vN: " (chain.py MAX_TEXT)
MAX_PENDING_REPAIRS = 10  # per tool: repairs waiting for a reviewer before more are refused
LIBRARY, CLI, MCP = "library", "cli", "mcp"
# why a repaired version waits for a reviewer (`held` in its result and its provenance)
WIDENS = "capabilities_widened"  # it reaches what the repaired version did not: always held
REVIEW = "repair_review"  # an agent's repair (or require_approval): held unless allowed
POLICY = "approval_policy"  # the registry's approval policy holds it


class Attempt(NamedTuple):
    """One generated attempt and why it did not pass (no findings: it passed)."""

    number: int
    stage: str  # "gate" or "verify"
    sha256: str | None
    findings: tuple[Finding, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        from dyntools.pipeline.failures import finding_dict

        return {"attempt": self.number, "stage": self.stage, "sha256": self.sha256,
                "passed": not self.findings,
                "findings": [finding_dict(f) if f.code.startswith("DR") else f.as_dict()
                             for f in self.findings]}


class _Tried(NamedTuple):
    attempt: Attempt
    source: str
    passed: tuple[Any, Any, VerificationReport, Any, int] | None = None


class _RepairFields(NamedTuple):
    tool: Tool
    record: VersionRecord
    repaired: int  # the version that failed
    counterexample: Example
    failure: tuple[Finding, ...]  # what the failing version did with the counterexample
    attempts: tuple[Attempt, ...]
    stations: tuple[StationEvent, ...]
    verification: VerificationReport
    held: str | None = None  # WIDENS, REVIEW or POLICY when pending


class RepairResult(_RepairFields, VersionOutcome):
    """A repaired version (current, or pending a reviewer) and how it got there (its
    approve command is ensure's: a repair is never made with --contract-change)."""

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        from dyntools.pipeline.failures import finding_dict

        return {
            "tool": self.tool.as_dict(),
            "version": self.record.version,
            "repaired": self.repaired,
            "status": self.record.status,
            **({"approve_command": self.approve_command, "held": self.held}
               if self.pending else {}),
            "sha256": self.record.sha256,
            "counterexample": self.counterexample.as_dict(),
            "failure": [finding_dict(f) for f in self.failure],
            "attempts": [a.as_dict() for a in self.attempts],
            "stations": [e.as_dict() for e in self.stations if e.finished],
            "verification": self.verification.as_dict(),
        }


class Repairer:
    """`Dyntools.repair` (imported when a repair is asked for: a call never loads this)."""

    def __init__(self, core: Ensuring) -> None:
        self.core = core

    def repair(
        self,
        name: str,
        params: Mapping[str, Any] | None,
        expected: Mapping[str, Any],
        *,
        reason: str | None = None,
        generator: Generator | None = None,
        call: str | None = None,
        exchanges: Sequence[Mapping[str, Any]] | None = None,
        require_approval: bool = False,
        requested_by: str = LIBRARY,
        on_station: StationListener | None = None,
        tools: ToolSource | None = None,
    ) -> RepairResult:
        """Turn a failing call of `name` (`params`, or the kept params of failed call `call`)
        and the result it should have given (`expected`) into a verified next version.

        `exchanges`: the recorded HTTP exchanges of the call, for a tool that makes requests
        (verification never reaches the network). The new version waits for a reviewer
        (`result.pending`, `result.held` says why) when the approval policy says so, when
        `require_approval` is set, when it declares CAPABILITIES the repaired version did not
        (always), and unless this `Dyntools` was made with `allow_unreviewed_repairs=True`.
        Raises UsageError (bad input; NothingToRepair: the current version already gives
        `expected`; ContractContradiction: the contract promises other results for
        `params`), RepairsPending (a pending repair carries this counterexample, or
        MAX_PENDING_REPAIRS wait), InvalidParams, VerificationFailed (no attempt passed;
        nothing written), and the stations' errors as `ensure` does."""
        require_valid_name(name)
        if (params is None) == (call is None):
            raise UsageError("a repair takes the failing params, or the id of a failed call "
                             "whose params were kept, not both", tool=name)
        if call is not None:
            params = self._kept_params(name, call)
        counterexample = _counterexample(name, params, expected, exchanges)
        if reason is not None and (not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS):
            raise UsageError(f"a repair's reason is text of at most {MAX_REASON_CHARS} "
                             "characters", tool=name)
        recorder = Recorder(name, on_station)
        held = require_approval or not self.core.allow_unreviewed_repairs
        # A repair never widens what a tool reaches without a person: whatever the registry's
        # policy and the operator's flag, a version that declares more than the one it
        # repairs waits (a prompt-injected report must not buy a tool the network).
        approval = stricter(stricter(self.core.approval, CAPABILITIES),
                            "always" if held else None)
        log = get_logger("pipeline")
        started = time.perf_counter()
        try:
            with self.core._name_lock(name):
                current = self._repair_lookup(name, recorder, approval)
                if requested_by != CLI:
                    self._no_flood(name, current, counterexample)
                result = self._repair(name, current, counterexample, reason, call,
                                      generator or self.core.generator, approval, requested_by,
                                      recorder, tools)
        except Exception as exc:
            log.info(REPAIR_EVENT, tool=name, outcome=FAILED, call=call, by=requested_by,
                     reason=getattr(exc, "reason", "internal_error"),
                     duration_ms=round(ms_since(started), 3))
            raise
        log.info(REPAIR_EVENT, tool=name, outcome=result.record.status, call=call,
                 by=requested_by, repaired=result.repaired, version=result.version,
                 attempts=len(result.attempts), duration_ms=round(ms_since(started), 3))
        return result

    # ------------------------------------------------------------------------------ steps

    def _kept_params(self, name: str, call: str) -> Any:
        from dyntools.pipeline.failed_calls import RETENTION_DAYS, FailedCalls

        kept = FailedCalls(self.core.registry.root).get(call)
        if kept is None:
            raise UsageError(f"no failed call {str(call)[:40]!r} is kept in this registry "
                             f"(unknown id, older than {RETENTION_DAYS} days, or a call that "
                             "succeeded): give --params instead", tool=name)
        if kept.get("tool") != name:
            raise UsageError(f"call {call} was a call of {str(kept.get('tool'))[:64]!r}, not "
                             f"of {name!r}", tool=name)
        if kept.get("params") is None:
            raise UsageError(f"the params of call {call} were not kept "
                             f"({kept.get('params_dropped') or 'not JSON'}): give --params "
                             "instead", tool=name)
        return kept["params"]

    def _repair_lookup(self, name: str, recorder: Recorder, approval: str) -> VersionRecord:
        with recorder.station(LOOKUP) as found:
            with contextlib.suppress(UnknownTool):
                self.core.registry.refresh(name)
            if name not in self.core.registry.names():
                raise UnknownTool(f"unknown tool {name!r} in registry {self.core.registry.root}",
                                  tool=name)
            current = self.core.registry.current(name)
            if current is None:
                refusal = self.core.registry.refusal(name)
                if refusal is not None:
                    raise refusal
                raise VersionUnusable(f"{name} has no current version to repair (quarantined, "
                                      "rejected, pending or none): dyntools review says why",
                                      tool=name)
            recorder.version = current.version
            problem = self.core.registry.writable_problem(name)
            if problem is not None:
                raise PersistError(f"cannot repair {name}: {problem}", tool=name)
            if not needs_approval(approval):
                # Activating the repair is a decision: with trusted keys one of them signs
                # it. Said before anything is generated.
                from dyntools.registry.chainwrite import require_key

                require_key(self.core.registry.trusted_keys, self.core.signer,
                            f"activating a repair of {name} (or hold it for a reviewer)", name)
            found.outcome = "hit"
            found.detail = f"v{current.version} is current: repairing it"
        return current

    def _no_flood(self, name: str, current: VersionRecord, counterexample: Example) -> None:
        """Refuse an agent's repair (MCP, the library) whose counterexample a pending repair
        already carries, or when MAX_PENDING_REPAIRS of the tool's repairs wait for a
        reviewer (RepairsPending): each report costs a model's attempts and a pending
        version kept in the manifest, so a flood of them stops at what a reviewer can
        read. The operator's own `dyntools repair` is not counted against."""
        from dyntools.pipeline.contract import example_digest, recorded_counterexamples

        digest = example_digest(counterexample)
        waiting = [r for r in self.core.registry.versions(name)
                   if r.status == PENDING and r.version > current.version
                   and isinstance(r.provenance.get("repair"), Mapping)]
        for record in waiting:
            if any(example_digest(e) == digest for e in recorded_counterexamples(record)):
                raise RepairsPending(
                    f"{name} v{record.version}, a repair of this same failure, waits for a "
                    f"reviewer: {approve_command(name, record.version)} (or reject it)",
                    tool=name, version=record.version)
        if len(waiting) >= MAX_PENDING_REPAIRS:
            raise RepairsPending(
                f"{len(waiting)} repairs of {name} wait for a reviewer (at most "
                f"{MAX_PENDING_REPAIRS}): review them first (dyntools review {name})",
                tool=name, pending=[r.version for r in waiting])

    def _repair(self, name: str, current: VersionRecord, counterexample: Example,
                reason: str | None, call: str | None, generator: Generator, approval: str,
                requested_by: str, recorder: Recorder,
                tools: ToolSource | None) -> RepairResult:
        from dyntools.generators.base import RUN, ToolSpec
        from dyntools.pipeline.verify import collect_examples

        self.core._params_check(current)(dict(counterexample.params))  # InvalidParams: exit 2
        meta = self.core._meta(current)
        contract = self.core._contract_examples(name)
        own = collect_examples(meta.examples)
        _no_contradiction(name, counterexample, (*own, *contract))
        source = self.core.registry.verified_source(
            name, current.version, sha256=current.sha256).decode("utf-8")
        failure = self._reproduce(name, current, source, counterexample, recorder, tools)
        spec = ToolSpec(name, meta.description, meta.params, (counterexample.as_dict(),))
        request = spec.with_feedback(source, failure, RUN)
        attempts: list[Attempt] = []
        for number in range(1, self.core.max_attempts + 1):
            recorder.version = None
            tried = self._attempt(spec, request, number, generator, counterexample, contract,
                                  recorder, tools)
            attempt, passed = tried.attempt, tried.passed
            attempts.append(attempt)
            if passed is not None:
                generated, report, verification, pool, candidate = passed
                adopted = False
                try:
                    record = self._persist_repair(
                        name, current, generated, report, verification, counterexample,
                        failure, attempts, reason, call, approval, requested_by, recorder)
                    if record.status == PENDING:
                        recorder.done("activate", PENDING, 0.0, detail=(
                            "not served until a reviewer approves it: "
                            f"{approve_command(name, record.version)}"))
                    else:
                        with recorder.station("activate") as activated:
                            # the verified worker holds these bytes under the number it was
                            # loaded as: it serves only if the registry gave the same one
                            record, adopted = self.core._activate(
                                record, pool if record.version == candidate else None)
                            activated.detail = f"v{current.version} -> v{record.version}"
                finally:
                    if not adopted:
                        pool.close(wait=True)
                repair = record.provenance.get("repair")
                held = repair.get("held") if isinstance(repair, Mapping) else None
                return RepairResult(self.core._tool(record), record, current.version,
                                    counterexample, failure, tuple(attempts),
                                    tuple(recorder.events), verification,
                                    held if record.status == PENDING else None)
            if not generator.accepts_feedback:
                break
            request = spec.with_feedback(tried.source, attempt.findings,
                                         "gate" if attempt.stage == "gate" else RUN)
        raise VerificationFailed(
            f"no repair of {name} v{current.version} passed after {len(attempts)} attempt(s) "
            f"from {generator.id}: {_last_problem(attempts)}; nothing was written",
            tool=name, version=current.version, persisted=None,
            attempts=[a.as_dict() for a in attempts])

    def _reproduce(self, name: str, current: VersionRecord, source: str,
                   counterexample: Example, recorder: Recorder,
                   tools: ToolSource | None) -> tuple[Finding, ...]:
        """The counterexample on the current version, as verification runs it: the findings
        of its failure (UsageError when it passes: nothing to repair)."""
        from dyntools.pipeline.failures import findings_of
        from dyntools.pipeline.verify import run_examples

        with recorder.station(REPRODUCE) as reproduced:
            pool = self.core._open_pool(name, current.version, source)
            try:
                report = run_examples(
                    pool_call(pool), (counterexample,), tool=name,
                    check=self.core._params_check(current),
                    host_for=self.core._replay_hosts(name, current.version,
                                                self.core._declared_by(current), tools))
            finally:
                pool.close(wait=True)
            outcome = report.outcomes[0]
            if outcome.passed:
                raise NothingToRepair(
                    f"{name} v{current.version} already returns the expected result for these "
                    "params: there is nothing to repair", tool=name, version=current.version)
            findings = tuple(findings_of(outcome, source))
            reproduced.detail = f"v{current.version} fails it: {outcome.describe()}"
        return findings

    def _attempt(self, spec: ToolSpec, request: ToolSpec, number: int, generator: Generator,
                 counterexample: Example, contract: Sequence[Example], recorder: Recorder,
                 tools: ToolSource | None) -> _Tried:
        """One attempt: its record, its source and, when it passed, what persisting it
        needs (the verified worker still open)."""
        from dyntools.generators.loop import require_name
        from dyntools.pipeline.failures import findings_of
        from dyntools.pipeline.verify import collect_examples, run_examples

        name = spec.name
        with recorder.station("generate") as generating:
            generated = generator.generate(request)
            generating.detail = f"{generator.id}, attempt {number}"
        source = generated.source
        with recorder.station("gate") as gating:
            report = require_name(check_source(source, self.core.policy, path=f"<{generator.id}:"
                                               f"{name}>", expected_name=name), source, name)
            gating.outcome = "accepted" if report.accepted else "rejected"
            gating.detail = (f"sha256 {report.sha256[:12]}" if report.accepted else
                             f"{len(report.findings)} finding(s): "
                             f"{', '.join(sorted(report.codes))}")
        if not report.accepted:
            return _Tried(Attempt(number, "gate", report.sha256, tuple(report.findings)), source)
        meta = metadata_of(report)
        candidate = max((r.version for r in self.core.registry.versions(name)), default=0) + 1
        try:
            with recorder.station("load") as loaded:
                pool = self.core._open_pool(name, candidate, source)
                loaded.detail = f"compiled in a sandbox worker (as v{candidate})"
        except LoadError as exc:
            from dyntools.pipeline.failures import error_finding

            finding = error_finding(exc, source, counterexample.params, counterexample.result)
            return _Tried(Attempt(number, "verify", report.sha256, (finding,)), source)
        passed = False
        try:
            examples = collect_examples(meta.examples, contract=contract,
                                        counterexamples=(counterexample,))
            with recorder.station("verify") as verdict:
                verification = run_examples(
                    pool_call(pool), examples, tool=name,
                    check=params_check(meta.params, name),
                    host_for=self.core._replay_hosts(name, candidate, meta.capabilities, tools))
                verdict.detail = verification.summary()
                if not verification.passed:
                    verdict.outcome, verdict.reason = FAILED, VerificationFailed.reason
            if verification.passed:
                passed = True
                return _Tried(Attempt(number, "verify", report.sha256), source,
                              (generated, report, verification, pool, candidate))
            findings = tuple(f for outcome in verification.failures
                             for f in findings_of(outcome, source))
            return _Tried(Attempt(number, "verify", report.sha256, findings), source)
        finally:
            if not passed:
                pool.close(wait=True)

    def _persist_repair(self, name: str, current: VersionRecord, generated: Any, report: Any,
                        verification: VerificationReport, counterexample: Example,
                        failure: Sequence[Finding], attempts: Sequence[Attempt],
                        reason: str | None, call: str | None, approval: str,
                        requested_by: str, recorder: Recorder) -> VersionRecord:
        from dyntools.pipeline.contract import COUNTEREXAMPLES, contract_decision
        from dyntools.pipeline.failures import finding_dict

        meta = metadata_of(report)
        provenance: dict[str, Any] = {
            **generated.as_provenance(), "attempts": len(attempts),
            "repair": {"from_version": current.version, "reason": reason, "call": call,
                       "requested_by": requested_by,
                       "failure": [finding_dict(f) for f in failure]},
            COUNTEREXAMPLES: [counterexample.as_dict()],
            "verification": {"examples": verification.passed_examples,
                             "counts": verification.counts()},
        }
        previous = self.core._declared_by(current)
        pending = needs_approval(approval, meta.capabilities, previous)
        held = _held(approval, self.core.approval, meta.capabilities.widens(previous)
                     if meta.capabilities is not None else {}) if pending else None
        provenance["repair"]["held"] = held
        why = f"repaired v{current.version}" + (f": {reason}" if reason else "")
        decision = None
        if not pending:
            decision = contract_decision(
                {"action": "ensure", "by": self.core.approver or approver_name(), "reason": why},
                self.core.registry.tool(name), (counterexample,), contract_change=False)
        with recorder.station("persist") as persisted:
            record = self.core.registry.add_version(
                name, generated.source, provenance, activate=not pending,
                status=PENDING if pending else "approved",
                reason=(f"awaiting approval ({held}: {_HELD[str(held)]})" if pending
                        else None),
                report=report, decision=decision,
                signer=self.core.signer if not pending else None)
            recorder.version = record.version
            persisted.outcome = record.status
            self.core._remember_meta(record, meta)
            persisted.detail = f"{record.path.name} sha256 {record.sha256[:12]}"
        return record


_HELD = {
    WIDENS: "the repaired version declares CAPABILITIES the one it repairs did not",
    REVIEW: "a repair an agent asked for, or one held with require_approval",
    POLICY: "the registry's approval policy",
}


def _held(approval: str, registry_policy: str, widened: Mapping[str, Any]) -> str:
    """Why a pending repair waits: the first of WIDENS, POLICY, REVIEW that holds."""
    if widened:
        return WIDENS
    if needs_approval(registry_policy):
        return POLICY
    return REVIEW


def _counterexample(name: str, params: Any, expected: Any,
                    exchanges: Sequence[Mapping[str, Any]] | None) -> Example:
    from dyntools.pipeline.verify import COUNTEREXAMPLE, Example, canonical

    if not isinstance(params, Mapping):
        raise UsageError("the failing params must be a JSON object", tool=name)
    if not isinstance(expected, Mapping):
        raise UsageError("the expected result must be a JSON object (a tool returns one)",
                         tool=name)
    value: dict[str, Any] = {"params": dict(params), "result": dict(expected)}
    if exchanges is not None:
        value["http"] = list(exchanges)
    example = Example.parse(value, COUNTEREXAMPLE)
    if len(canonical(example.as_dict())) > MAX_COUNTEREXAMPLE_BYTES:
        raise UsageError(f"the counterexample is over {MAX_COUNTEREXAMPLE_BYTES} bytes of JSON "
                         "(it is kept in the manifest)", tool=name)
    return example


def _no_contradiction(name: str, counterexample: Example, promised: Sequence[Example]) -> None:
    """A counterexample that gives other params' promised result a different answer asks
    the tool to break its contract: that is a contract change, not a repair."""
    from dyntools.pipeline.verify import canonical

    params = canonical(dict(counterexample.params))
    wanted = canonical(dict(counterexample.result))
    for example in promised:
        if canonical(dict(example.params)) == params and canonical(dict(example.result)) != (
                wanted):
            raise ContractContradiction(
                f"the counterexample contradicts the contract of {name}: for these params it "
                f"promises {canonical(dict(example.result))[:200]} ({example.origin}). A "
                "repair keeps the contract; changing it is a new version with a contract "
                f"change: dyntools ensure {name} --new-version --contract-change", tool=name)


def _last_problem(attempts: Sequence[Attempt]) -> str:
    if not attempts or not attempts[-1].findings:
        return "no attempt was made"
    finding = attempts[-1].findings[0]
    more = len(attempts[-1].findings) - 1
    return (f"attempt {attempts[-1].number} ({attempts[-1].stage}): {finding.code} "
            f"{finding.message[:300]}" + (f" (and {more} more)" if more else ""))
