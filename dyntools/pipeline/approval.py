"""Approval: a reviewer's decision on a pending or dropped-in version, verified exactly as
`ensure` verifies before anything becomes current.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dyntools.base.log import get_logger
from dyntools.errors import (
    GateRejected,
    UnknownTool,
    UsageError,
    VerificationFailed,
)
from dyntools.gate import check_source
from dyntools.gate.findings import GateReport
from dyntools.pipeline.core import PipelineCore, ToolSource, approver_name, pool_call, sha256_of
from dyntools.pipeline.events import approve_command_for, recorded_contract_change
from dyntools.pipeline.toolmeta import (
    ToolMetadata,
    params_check,
    read_metadata,
)
from dyntools.registry.manifest import APPROVED, PENDING, REJECTED
from dyntools.registry.records import VersionRecord

if TYPE_CHECKING:
    from dyntools.pipeline.verify import Example, VerificationReport


class Approving(PipelineCore):
    """`Dyntools.verify_source` and `Dyntools.approve`."""

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
        counterexamples: Sequence[Example] = (),
    ) -> VerificationReport:
        """Run what `ensure` runs before a version may become current: the file's EXAMPLES,
        the caller's examples, the counterexamples a repair recorded on this version and
        (unless `contract_change`) the tool's contract, in a sandbox worker holding exactly
        `source`. `metadata`: what the gate read from `source` (its report's), so it is not
        parsed again."""
        from dyntools.pipeline.verify import collect_examples, run_examples

        meta = metadata if metadata is not None else read_metadata(source)
        contract = () if contract_change else self._contract_examples(name)
        examples = collect_examples(meta.examples, collect_examples(caller=caller_examples),
                                    contract, counterexamples)
        pool = self._open_pool(name, version, source)
        try:
            return run_examples(pool_call(pool), examples, tool=name,
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
        nothing becomes current and VerificationFailed is raised: the version is recorded as
        rejected with the failing example when it broke its own EXAMPLES, and left as it was
        (pending, unrecorded, or for `source` not written) when only `examples` or the
        contract failed: the reviewer's choices, not the version's fault. A version whose
        provenance records `contract_change` is approved only with `contract_change`
        (UsageError before anything runs). Signs with `self.signer` when set.
        `expected_sha256`: the SHA-256 of the bytes the reviewer read; a file that holds
        anything else now is refused (UsageError) before it is verified."""
        if (version is None) == (source is None):
            raise UsageError("approve takes either a version or a source")
        # With trusted keys an approval is a decision one of them signs: said before the
        # version is verified, and nothing changes.
        from dyntools.registry.chainwrite import require_key

        require_key(self.registry.trusted_keys, self.signer,
                    f"approving {name}" + (f" v{version}" if version is not None else ""), name,
                    version)
        by = by or self.approver or approver_name()
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
            if (existing is not None and recorded_contract_change(existing.provenance)
                    and not contract_change):
                # Verified against the current version's examples it was made to drop, it
                # would fail, and a failure is final: refused before anything runs.
                raise UsageError(
                    f"{name} v{version} was made with --contract-change (its provenance "
                    "records contract_change: true), so it is not held to the current "
                    "version's examples: approve it with --contract-change "
                    f"({approve_command_for(existing)}); nothing was decided, it stays "
                    "pending", tool=name, version=version, flag="--contract-change")
            data = (self.registry.read_recorded(name, version) if existing is not None
                    else self.registry.read_unrecorded(name, version))
            if expected_sha256 is not None and sha256_of(data) != expected_sha256:
                raise UsageError(
                    f"{name} v{version} changed since the page showed it (SHA-256 "
                    f"{sha256_of(data)[:12]} now, {expected_sha256[:12]} shown): nothing was "
                    "approved; read it again", tool=name, version=version)
            gated = self._gated(name, data)
            # A repaired version's counterexamples run again, and join the contract with it.
            from dyntools.pipeline.contract import contract_decision, recorded_counterexamples

            counter = recorded_counterexamples(existing) if existing is not None else []
            report = self.verify_source(name, version, data.decode("utf-8"), examples,
                                        contract_change=contract_change,
                                        metadata=gated.metadata, counterexamples=counter)
            if not report.passed and not report.failed_own_examples:
                raise self._reviewer_failure(name, version, report,
                                             PENDING if existing is not None else None)
            failure = None if report.passed else f"verification_failed: {report.summary()}"
            contract = contract_decision({}, state, counter, contract_change)
            if existing is not None:
                record = (self.registry.decide(name, version, "approve", by=by, reason=reason,
                                               activate=activate, signer=self.signer,
                                               contract=contract or None)
                          if failure is None else
                          self.registry.decide(name, version, "reject", by=by, reason=failure,
                                               signer=self.signer))
            else:
                record = self.registry.approve(
                    name, version, provenance, activate=activate,
                    status=APPROVED if failure is None else REJECTED, reason=failure,
                    expected_sha256=sha256_of(data),
                    decision=decision if failure is None else {**decision, "reason": failure},
                    signer=self.signer)
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
        if not report.passed and not report.failed_own_examples:
            raise self._reviewer_failure(name, candidate, report, None)
        if report.passed:
            from dyntools.pipeline.contract import contract_decision

            state = self.registry.tool(name) if name in self.registry.names() else None
            record = self.registry.add_version(
                name, data, prov, activate=activate,
                decision=contract_decision(decision, state, (), contract_change),
                signer=self.signer, report=gated)
        else:
            failure = f"verification_failed: {report.summary()}"
            record = self.registry.add_version(name, data, prov, status=REJECTED,
                                               reason=failure,
                                               decision={**decision, "action": "reject",
                                                         "reason": failure},
                                               signer=self.signer, report=gated)
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
    def _reviewer_failure(name: str, version: int, report: VerificationReport,
                          left: str | None) -> VerificationFailed:
        """The version passed its own EXAMPLES and failed only what the approval held it to
        (the reviewer's --example, the current version's contract): the reviewer's flags, not
        the version, so nothing is decided and it stays as it was (`left`: pending, or None
        for a file nothing records)."""
        from dyntools.pipeline.verify import CALLER, CONTRACT

        origins = report.failed_origins
        fixes = []
        if CALLER in origins:
            fixes.append("correct or drop the --example that fails")
        if CONTRACT in origins:
            fixes.append("pass --contract-change if it is meant to change what the current "
                         "version promised")
        stays = ("it stays pending" if left == PENDING else "nothing was recorded")
        return VerificationFailed(
            f"{name} v{version} passes its own EXAMPLES but failed what this approval held it "
            f"to: {report.summary()}. Nothing was decided, {stays}: "
            f"{'; or '.join(fixes)}", tool=name, version=version,
            verification=report.as_dict(), persisted=left)

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
