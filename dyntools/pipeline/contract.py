"""A tool's contract: what every new version must pass, and what `health` re-verifies.

    contract_examples(state, record, declared)  # the version's contract, as Examples
    counterexamples(state)                       # the counterexamples in the tool's contract
    signed_gap(state)                            # signed counterexamples no version records

The contract of a version is what it promised when it was verified: its own EXAMPLES, and the
examples it passed then (recorded in its provenance: its own, the caller's, the inherited
contract). A version approved with a contract change (`contract_change` in its provenance)
inherited nothing, so the inherited contract restarts there.

Counterexamples are failing calls turned into examples by `repair` (pipeline/repair.py). Each
is recorded in the provenance of the version it repaired (`counterexamples`), and joins the
tool's contract when a version that passes it is approved: from then on every later version
must pass it, whichever version is current (a rollback does not drop it). The rule: the
counterexamples recorded on every version that was approved at some point (its status is
approved, or the pointer was once on it), from the newest approved version made with a
contract change onwards. Retiring the version that brought one drops it from this reckoning
without trusted keys; with them the chain decides (below).

With trusted keys, adding a counterexample is a signed decision: a `contract` record of the
tool's decision chain (registry/chain.py) names the digest of every counterexample in the
contract, whole. A manifest edited to drop one cannot drop it from the chain: a signed digest
whose counterexample no version's provenance holds any more makes `signed_gap` name it, and
the pipeline refuses to verify against a contract that lost part of itself (ChainMismatch).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dyntools.registry.manifest import APPROVED

if TYPE_CHECKING:
    from dyntools.pipeline.verify import Example
    from dyntools.registry.records import ToolState, VersionRecord

COUNTEREXAMPLES = "counterexamples"  # the provenance key of a repaired version
CONTRACT_CHANGE = "contract_change"
MAX_COUNTEREXAMPLES = 256  # per version: each is a whole example, kept in the manifest


def example_digest(example: Example | Mapping[str, Any]) -> str:
    """The SHA-256 of an example's canonical JSON (what a `contract` record signs)."""
    from dyntools.gate.findings import sha256_hex
    from dyntools.pipeline.verify import Example, canonical

    value = example.as_dict() if isinstance(example, Example) else dict(example)
    return sha256_hex(canonical(value).encode("utf-8"))


def recorded_counterexamples(record: VersionRecord) -> list[Example]:
    """The counterexamples a version's provenance records (those that parse; a manifest is
    the registry's, so a malformed entry is skipped here and reported by `health`:
    malformed_counterexamples)."""
    from dyntools.errors import UsageError
    from dyntools.pipeline.verify import COUNTEREXAMPLE, Example

    values = record.provenance.get(COUNTEREXAMPLES)
    if not isinstance(values, list):
        return []
    found: list[Example] = []
    for value in values[:MAX_COUNTEREXAMPLES]:
        try:
            found.append(Example.parse(value, COUNTEREXAMPLE))
        except UsageError:
            continue
    return found


def malformed_counterexamples(record: VersionRecord) -> int:
    """How many entries of a version's `counterexamples` do not parse as examples (or are
    past MAX_COUNTEREXAMPLES): the contract skips them; `health` reports the version
    `unverified` (`contract_invalid`)."""
    from dyntools.errors import UsageError
    from dyntools.pipeline.verify import COUNTEREXAMPLE, Example

    values = record.provenance.get(COUNTEREXAMPLES)
    if values is None:
        return 0
    if not isinstance(values, list):
        return 1
    bad = max(0, len(values) - MAX_COUNTEREXAMPLES)
    for value in values[:MAX_COUNTEREXAMPLES]:
        try:
            Example.parse(value, COUNTEREXAMPLE)
        except UsageError:
            bad += 1
    return bad


def was_approved(record: VersionRecord, history: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the version was approved at some point: its recorded status says so (today's
    checks may quarantine it: still approved when it was), or the pointer was on it."""
    if record.recorded_status == APPROVED:
        return True
    return any(event.get("to") == record.version for event in history)


def counterexamples(state: ToolState) -> tuple[Example, ...]:
    """The counterexamples in the tool's contract (see the module docstring), oldest first,
    each once."""
    approved = [state.records[v] for v in sorted(state.records)
                if was_approved(state.records[v], state.history)]
    start = 0
    for index, record in enumerate(approved):
        if record.provenance.get(CONTRACT_CHANGE) is True:
            start = index
    seen: set[str] = set()
    found: list[Example] = []
    for record in approved[start:]:
        for example in recorded_counterexamples(record):
            digest = example_digest(example)
            if digest not in seen:
                seen.add(digest)
                found.append(example)
    return tuple(found)


def signed_digests(state: ToolState) -> frozenset[str]:
    """With trusted keys, the counterexamples the tool's chain signs (its latest `contract`
    record); empty without trusted keys, or before the first."""
    verdict = state.chain
    if verdict is None:
        return frozenset()
    from dyntools.registry.chain import signed_contract

    return signed_contract(verdict.records)[1]


def signed_gap(state: ToolState) -> list[str]:
    """Signed counterexamples (digests) that no version's provenance holds any more."""
    signed = signed_digests(state)
    if not signed:
        return []
    held: set[str] = set()
    for record in state.records.values():
        held.update(example_digest(e) for e in recorded_counterexamples(record))
    return sorted(signed - held)


def signed_counterexamples(state: ToolState) -> tuple[Example, ...]:
    """The counterexamples the chain signs, wherever a version's provenance holds them
    (a retired version's included: the chain, not the manifest, says they are in force)."""
    signed = signed_digests(state)
    if not signed:
        return ()
    found: dict[str, Example] = {}
    for version in sorted(state.records):
        for example in recorded_counterexamples(state.records[version]):
            digest = example_digest(example)
            if digest in signed:
                found.setdefault(digest, example)
    return tuple(found.values())


def gap_message(name: str, missing: Sequence[str]) -> str:
    return (f"the contract of {name} lost {len(missing)} counterexample(s) its decision chain "
            f"signed ({', '.join(d[:12] for d in missing[:3])}"
            f"{', ...' if len(missing) > 3 else ''}): no version's provenance in the manifest "
            "holds them any more, so the manifest was edited; restore it from a good copy")


def declared_contract(record: VersionRecord, own: Iterable[Any]) -> list[Any]:
    """A version's own EXAMPLES and the examples it passed when it was verified (recorded in
    its provenance; none for a version added without verification)."""
    values: list[Any] = list(own)
    verification = record.provenance.get("verification")
    if isinstance(verification, Mapping):
        passed = verification.get("examples")
        if isinstance(passed, list):
            values.extend(passed)
    return values


def contract_decision(decision: Mapping[str, Any], state: ToolState | None,
                      added: Sequence[Example], contract_change: bool) -> dict[str, Any]:
    """`decision` as a `contract` decision when approving this version changes the signed
    contract: it brings counterexamples, or it is a contract change while the chain signs
    some (the registry's writer states the whole set: chainwrite.contract_set). Otherwise
    `decision` unchanged."""
    signed = signed_digests(state) if state is not None else frozenset()
    if not added and not (contract_change and signed):
        return dict(decision)
    from dyntools.registry.chain import CONTRACT

    return {**decision, "action": CONTRACT,
            "contract_added": sorted({example_digest(e) for e in added}),
            "contract_change": contract_change}
