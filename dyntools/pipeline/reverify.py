"""Re-verification of the versions a registry serves, now: `health`'s regressions.

    checks = reverify_all(core, targets, jobs=4)   # one VersionCheck per served version

Each served version runs its contract (pipeline/contract.py: its EXAMPLES, what it passed when
it was verified, the tool's counterexamples) in a sandbox worker of its own, under this run's
allow-list and Python, exactly as verification runs it: a capability tool's examples replay
their recorded exchanges (never the network), and a composed tool is called through the
registry as verification calls it (its requests may only read). The versions run in
parallel, `jobs` at a time (each a worker of its own: CPU-bound in the worker, so the host's
threads only wait).

What a version cannot be re-verified against is `unverified`, with why, never a pass: no
examples to run, a host request the operator's policy refuses while verification runs it (a
composition not granted among them: verification holds a configured policy, as a call
does), a layer missing, recorded exchanges missing, a contract the decision chain says lost
part of itself, a run past the budget. Nothing here writes to the registry: no version is
recorded, quarantined or moved, and a failed example keeps no params.

The same worker then runs the params of its duplicate candidates' examples (`partners`), so a
pair's results can be compared without a second start (pipeline/duplicates.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, NamedTuple

from dyntools.errors import (
    DyntoolsError,
    LayerUnavailable,
    LoadError,
    SandboxError,
    UsageError,
    VersionUnusable,
)

if TYPE_CHECKING:
    from dyntools.pipeline.core import PipelineCore
    from dyntools.pipeline.verify import Example
    from dyntools.registry.records import ToolState, VersionRecord

QUARANTINED = "quarantined"
# unverified reasons
NO_EXAMPLES = "no_examples"
NOT_GRANTED = "not_granted"
LAYER_MISSING = "layer_unavailable"
EXCHANGES_MISSING = "exchanges_missing"
CONTRACT_EDITED = "contract_edited"
CONTRACT_INVALID = "contract_invalid"
NOT_RUN = "not_run"
BUDGET = "verification_timeout"
SANDBOX = "sandbox_error"
CHAIN = "chain"
UNREADABLE = "unreadable"
# reasons of a failed example that say the example could not be judged, not that it failed
_UNJUDGED = {"unrecorded_request": EXCHANGES_MISSING, "verification_timeout": BUDGET,
             "layer_unavailable": LAYER_MISSING}
SHOWN_CHARS = 2000


class Target(NamedTuple):
    """One served version to re-verify, and the params of its partners' examples to run on
    it afterwards (duplicates)."""

    state: ToolState
    record: VersionRecord
    partners: tuple[Mapping[str, Any], ...] = ()


class VersionCheck(NamedTuple):
    """What re-verifying one version found. `results` maps each params run (canonical JSON)
    to ("ok", canonical result) or ("error", reason): its own examples' and its partners'."""

    tool: str
    version: int
    examples: int
    regressions: tuple[dict[str, Any], ...] = ()
    unverified: tuple[dict[str, Any], ...] = ()
    results: Mapping[str, tuple[str, str]] = {}
    duration_ms: float = 0.0


def examples_of(core: PipelineCore, state: ToolState,
                record: VersionRecord) -> tuple[Example, ...]:
    """The version's contract as examples: own EXAMPLES, the tool's counterexamples, what it
    passed when verified. Raises VersionUnusable when its bytes no longer check."""
    from dyntools.pipeline.contract import (
        counterexamples,
        declared_contract,
        malformed_counterexamples,
        signed_counterexamples,
    )
    from dyntools.pipeline.verify import collect_examples

    meta = core._meta(record)
    for version in sorted(state.records):
        bad = malformed_counterexamples(state.records[version])
        if bad:
            raise UsageError(f"v{version} records {bad} counterexample(s) that are not "
                             "examples")
    passed = declared_contract(record, ())
    return collect_examples(meta.examples, contract=passed, counterexamples=(
        *counterexamples(state), *signed_counterexamples(state)))


def quarantined_entry(record: VersionRecord) -> dict[str, Any]:
    return {"tool": record.name, "version": record.version, "reason": QUARANTINED,
            "error": {"reason": record.reason_code, "message": _cut(record.reason or "")}}


def unverified_entry(tool: str, version: int | None, reason: str, why: str) -> dict[str, Any]:
    return {"tool": tool, "version": version, "reason": reason, "why": _cut(why)}


def reverify(core: PipelineCore, target: Target) -> VersionCheck:
    """Re-verify one version (never raises: whatever stops it is an unverified entry)."""
    started = time.perf_counter()
    record = target.record
    name, version = record.name, record.version
    try:
        return _reverify(core, target, started)
    except VersionUnusable as exc:
        return VersionCheck(name, version, 0, regressions=(
            {"tool": name, "version": version, "reason": QUARANTINED,
             "error": {"reason": exc.details.get("reason_code") or exc.reason,
                       "message": _cut(exc.message)}},), duration_ms=_ms(started))
    except Exception as exc:  # a check that breaks says so: fail closed, never a pass
        why = exc.message if isinstance(exc, DyntoolsError) else f"{type(exc).__name__}: {exc}"
        return VersionCheck(name, version, 0, unverified=(
            unverified_entry(name, version, SANDBOX, f"re-verification failed: {why}"),),
            duration_ms=_ms(started))


def _reverify(core: PipelineCore, target: Target, started: float) -> VersionCheck:
    from dyntools.pipeline.contract import gap_message, signed_gap
    from dyntools.pipeline.toolmeta import params_check
    from dyntools.pipeline.verify import canonical, run_examples

    state, record = target.state, target.record
    name, version = record.name, record.version
    missing = signed_gap(state)
    if missing:
        return VersionCheck(name, version, 0, unverified=(unverified_entry(
            name, version, CONTRACT_EDITED, gap_message(name, missing)),),
            duration_ms=_ms(started))
    meta = core._meta(record)
    try:
        examples = examples_of(core, state, record)
    except UsageError as exc:  # a recorded example or counterexample that is not one
        return VersionCheck(name, version, 0, unverified=(unverified_entry(
            name, version, CONTRACT_INVALID, f"its recorded contract cannot be read "
            f"({exc.message}): the manifest was edited, or written by something else"),),
            duration_ms=_ms(started))
    if not examples:
        return VersionCheck(name, version, 0, unverified=(unverified_entry(
            name, version, NO_EXAMPLES, "it has no EXAMPLES and recorded no verified examples: "
            "there is nothing to re-verify it against"),), duration_ms=_ms(started))
    source = core.registry.verified_source(name, version).decode("utf-8")
    try:
        pool = core._open_pool(name, version, source)
    except LayerUnavailable as exc:
        return VersionCheck(name, version, len(examples), unverified=(unverified_entry(
            name, version, LAYER_MISSING, exc.message),), duration_ms=_ms(started))
    except LoadError as exc:
        return VersionCheck(name, version, len(examples), regressions=(
            {"tool": name, "version": version, "example": None,
             "error": {"reason": exc.reason, "message": _cut(exc.message)}},),
            duration_ms=_ms(started))
    except SandboxError as exc:
        return VersionCheck(name, version, len(examples), unverified=(unverified_entry(
            name, version, SANDBOX, f"{exc.reason}: {exc.message}"),), duration_ms=_ms(started))
    try:
        check = params_check(meta.params, name)

        def call(params: dict[str, Any], host: Any = None) -> dict[str, Any]:
            result: dict[str, Any] = (pool.call(params, core.limits.timeout_s) if host is None
                                      else pool.call(params, core.limits.timeout_s, host=host))
            return result

        report = run_examples(call, examples, tool=name, check=check,
                              host_for=core._replay_hosts(name, version, meta.capabilities,
                                                          None))
        regressions, unverified, results = _judged(name, version, report)
        for params in target.partners:
            key = canonical(dict(params))
            if key in results:
                continue
            try:
                check(dict(params))
                results[key] = ("ok", canonical(call(dict(params))))
            except (DyntoolsError, TypeError, ValueError, RecursionError) as exc:
                results[key] = ("error", str(getattr(exc, "reason", type(exc).__name__)))
    finally:
        pool.close(wait=True)
    return VersionCheck(name, version, len(examples), tuple(regressions), tuple(unverified),
                        results, _ms(started))


def _judged(name: str, version: int, report: Any) -> tuple[list[dict[str, Any]],
                                                           list[dict[str, Any]],
                                                           dict[str, tuple[str, str]]]:
    from dyntools.pipeline.verify import ERROR, FAILED, PASSED, canonical
    from dyntools.pipeline.verify import NOT_RUN as SKIPPED

    regressions: list[dict[str, Any]] = []
    unverified: list[dict[str, Any]] = []
    results: dict[str, tuple[str, str]] = {}
    skipped = 0
    for outcome in report.outcomes:
        example = outcome.example
        key = canonical(dict(example.params))
        shown = {"params": dict(example.params), "result": dict(example.result),
                 "origin": example.origin}
        if outcome.status in (PASSED, FAILED):
            try:
                results.setdefault(key, ("ok", canonical(outcome.actual)))
            except (TypeError, ValueError, RecursionError):
                results.setdefault(key, ("error", "bad_result"))
        if outcome.status == FAILED:
            regressions.append({"tool": name, "version": version, "example": shown,
                                "got": outcome.actual})
        elif outcome.status == ERROR and outcome.error is not None:
            reason = str(outcome.error.get("reason"))
            message = _cut(str(outcome.error.get("message") or ""))
            results.setdefault(key, ("error", reason))
            if reason in _UNJUDGED or outcome.error.get("capability") is not None:
                # a request the declaration or the operator's policy refuses (a composition
                # not granted): verification could not run it, which is not a wrong answer
                unverified.append(unverified_entry(
                    name, version, _UNJUDGED.get(reason, NOT_GRANTED),
                    f"example {outcome.index + 1} ({example.origin}) could not be judged: "
                    f"{message}"))
            else:
                regressions.append({"tool": name, "version": version, "example": shown,
                                    "error": {"reason": reason, "message": message}})
        elif outcome.status == SKIPPED:
            skipped += 1
    if skipped:
        unverified.append(unverified_entry(
            name, version, NOT_RUN, f"{skipped} example(s) were not run after an error that "
            "cost the worker or the time budget"))
    return regressions, unverified, results


def refused_grants(core: PipelineCore, declared: Any) -> list[dict[str, Any]]:
    """What of a version's CAPABILITIES the operator's policy does not grant (all of it when
    no policy is configured)."""
    if not declared:
        return []
    from dyntools.capabilities.policy import EMPTY_POLICY

    policy = core.capabilities.policy or EMPTY_POLICY
    return [grant.as_dict() for grant in policy.grants(declared).refused]


def reverify_all(core: PipelineCore, targets: Sequence[Target], *, jobs: int,
                 on_done: Callable[[VersionCheck], None] | None = None) -> list[VersionCheck]:
    """Every target re-verified, `jobs` at a time; results in the targets' order."""
    if not targets:
        return []
    with ThreadPoolExecutor(max_workers=max(1, jobs),
                            thread_name_prefix="dyntools-health") as executor:
        futures = [executor.submit(reverify, core, target) for target in targets]
        checks = []
        for future in futures:
            check = future.result()
            if on_done is not None:
                on_done(check)
            checks.append(check)
    return checks


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."
