"""Writing a tool's decision chain: the key a decision needs, the head it builds on, and the
record it appends (the format and its checks are chain.py's).

The registry's writers (core.py) call these under the writer lock, with the manifest as it is
on disk now, so two decisions never link to the same head (a fork is refused when read).

With trusted keys configured, a decision is signed by one of them or refused
(`SigningKeyRequired`, nothing written), and it builds on the chain, not on the manifest: the
chain must verify and extend the head this consumer accepted (`ChainMismatch` otherwise), the
manifest's pointer is set back to the chain's before the decision applies (a pointer moved by
hand is undone, not signed), the action must fit what the chain says of the version (activate
and rollback need a version the chain approves; approve and reject one it has not decided
on), and the record states the chain's statuses plus what this decision changed. A tool with no
chain yet starts one from its manifest as it stands: the decider vouches for it by signing.

Without trusted keys nothing can be verified, so the record states the manifest as the
decision leaves it, linked to the chain's head (whose links must still hold).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dyntools.errors import ChainMismatch, SigningKeyRequired, TrustStateError, UsageError
from dyntools.registry import chain
from dyntools.registry.chain import SIGN_STATE, ChainRecord
from dyntools.registry.manifest import APPROVED, PENDING, Manifest

if TYPE_CHECKING:
    from dyntools.registry.freshness import TrustState
    from dyntools.registry.signing import Signer

# actions whose version must be one the chain approves / has not decided on yet
_NEEDS_APPROVED = frozenset({"activate", "rollback"})
_NEEDS_UNDECIDED = frozenset({"approve", "reject", "ensure", chain.CONTRACT})


def require_key(trusted: frozenset[str] | None, signer: Signer | None, what: str, name: str,
                version: int | None = None) -> None:
    """With trusted keys, `signer` must be one of them (SigningKeyRequired, before anything is
    written)."""
    if trusted is None:
        return
    if signer is None:
        raise SigningKeyRequired(
            f"trusted keys are configured, so {what} must be signed by one of them: give "
            "--sign-key FILE (or set DYNTOOLS_SIGNING_KEY); nothing changed",
            tool=name, version=version)
    if signer.public_key not in trusted:
        raise SigningKeyRequired(
            f"the signing key {signer.path} ({signer.public_key[:12]}...) is not one of the "
            f"trusted keys, so {what} signed with it would never be served; nothing changed",
            tool=name, version=version)


def decision_base(name: str, manifest: Manifest, action: str, version: int | None,
                  trusted: frozenset[str] | None,
                  trust: TrustState | None, *, root: Path) -> ChainRecord | None:
    """The head a decision builds on, with trusted keys (None: none configured, or the tool
    has no chain and this decision starts one). Raises ChainMismatch when the chain does not
    verify, does not extend what this consumer accepted, or says `action` cannot be taken on
    `version`; TrustStateError when the accepted heads cannot be read."""
    if trusted is None:
        return None
    verdict = chain.judge(name, manifest.chain, manifest.current,
                          chain.manifest_statuses(manifest.versions), trusted,
                          trust.accepted(name) if trust is not None else None,
                          registry=_identity(root, name, make=False),
                          digests=chain.manifest_digests(manifest.versions))
    if trust is not None:
        verdict = trust.admit(name, verdict)
    if verdict.code == chain.TRUST_STATE:
        raise TrustStateError(verdict.problem or "the accepted chain heads cannot be read",
                              tool=name)
    head = verdict.head
    if head is None:
        if verdict.code == chain.CHAIN_MISMATCH:
            raise ChainMismatch(f"nothing was decided: {verdict.problem}", tool=name,
                                hint=verdict.hint)
        return None
    said = head.statuses.get(version) if version is not None else None
    if action in _NEEDS_APPROVED and said != APPROVED:
        raise ChainMismatch(
            f"cannot {action} {name} v{version}: the decision chain does not approve it (it "
            f"says {said or 'nothing of it'}; head {head.summary()})", tool=name,
            version=version)
    if action in _NEEDS_UNDECIDED and said not in (None, PENDING):
        raise ChainMismatch(
            f"cannot {action} {name} v{version}: the decision chain says it is {said} (head "
            f"{head.summary()}), whatever the manifest says now", tool=name, version=version)
    return head


def chain_pointer(name: str, manifest: Manifest, head: ChainRecord | None) -> Manifest:
    """`manifest` with the chain's pointer, when they differ (the move is in its history)."""
    if head is None or manifest.current == head.current:
        return manifest
    if head.current is not None and head.current not in manifest.versions:
        raise ChainMismatch(
            f"the decision chain of {name} makes v{head.current} current, which the manifest "
            "no longer records: restore the manifest from a good copy", tool=name)
    return manifest.with_pointer(head.current, "restore", by="dyntools",
                                 reason="the decision chain's pointer (the manifest's "
                                        f"v{manifest.current} was not signed)")


def appended(name: str, manifest: Manifest, action: str, versions: Sequence[int],
             signer: Signer | None, head: ChainRecord | None, *,
             stamp: Mapping[str, Any], root: Path,
             extra: Mapping[str, Any] | None = None) -> Manifest:
    """`manifest` (as the decision leaves it) with the decision's signed record appended, when
    there is a signer. `stamp` is the decision as recorded on the version: by, time, reason;
    `extra` the action's own fields (chain.EXTRA_FIELDS: an alias's target; a contract
    record's set is computed here, from the chain and the stamp's `contract_added`)."""
    if signer is None:
        return manifest
    now = chain.manifest_statuses(manifest.versions)
    hashes = chain.manifest_digests(manifest.versions)
    prev: str | None
    if head is not None:
        statuses = dict(head.statuses)
        statuses.update({v: now[v] for v in versions if v in now})
        # What the chain approved keeps the hash it approved (a file and manifest entry
        # replaced since are not vouched for by the next decision); only the versions this
        # decision decides on take the manifest's.
        hashes = {**hashes, **head.digests, **{v: hashes[v] for v in versions if v in hashes}}
        seq, prev = head.seq + 1, head.digest
    else:
        statuses = now
        seq, prev = _link(name, manifest.chain)
    if action == chain.CONTRACT:
        extra = {"contract": contract_set(name, manifest, stamp)}
    record = _signed(signer, name, seq, prev, action, versions, manifest.current, statuses,
                     stamp, extra, registry=_identity(root, name, make=True), digests=hashes)
    return manifest.with_chain((*manifest.chain, record))


def contract_set(name: str, manifest: Manifest, stamp: Mapping[str, Any]) -> list[str]:
    """What a `contract` record states: the counterexamples the chain signed so far (none
    after a contract change, `contract_change` in the decision) and the ones the decision
    adds (`contract_added`, digests), whole and sorted."""
    added = stamp.get("contract_added")
    if not isinstance(added, list) or not all(isinstance(d, str) for d in added):
        raise UsageError(f"a contract decision on {name} names the counterexamples it adds",
                         tool=name)
    before: frozenset[str] = frozenset()
    if stamp.get("contract_change") is not True and manifest.chain:
        before = chain.signed_contract(chain.verify_chain(manifest.chain, name, None).records)[1]
    return sorted(before | set(added))


def _link(name: str, records: Sequence[Mapping[str, Any]]) -> tuple[int, str | None]:
    """Where a record goes after `records`, whose links and signatures must hold."""
    if not records:
        return 0, None
    check = chain.verify_chain(records, name, None)
    if check.problem is not None:
        raise ChainMismatch(
            f"the decision chain of {name} is broken, so nothing can be appended to it: "
            f"{check.problem}", tool=name,
            hint=f"dyntools sign-state {name} --accept-manifest --sign-key FILE starts over "
                 "from its valid part")
    return len(records), check.records[-1].digest


def _identity(root: Path, name: str, *, make: bool) -> str | None:
    """The registry's identity (identity.py), made now for a record that is about to be
    signed; ChainMismatch when its file is there but broken."""
    from dyntools.registry.identity import IdentityError, ensure_identity, read_identity

    try:
        return ensure_identity(root) if make else read_identity(root)
    except IdentityError as exc:
        raise ChainMismatch(f"nothing was decided: {exc}", tool=name) from None


def _signed(signer: Signer, name: str, seq: int, prev: str | None, action: str,
            versions: Sequence[int], current: int | None, statuses: Mapping[int, str],
            stamp: Mapping[str, Any], extra: Mapping[str, Any] | None = None, *,
            registry: str | None, digests: Mapping[int, str]) -> dict[str, Any]:
    """A new record, read back as a reader will read it: never write one it would refuse."""
    reason = stamp.get("reason")
    try:
        if registry is None:
            raise ValueError("the registry has no identity")
        record = chain.new_record(
            signer, tool=name, registry=registry, seq=seq, prev=prev, action=action,
            versions=versions, current=current, statuses=statuses, digests=digests,
            by=str(stamp.get("by")), time=str(stamp.get("time")),
            reason=str(reason) if reason is not None else None, extra=extra)
        chain.parse_record(record, name, seq, prev)
    except KeyError as exc:
        raise UsageError(f"cannot sign this decision on {name}: the manifest records no file "
                         f"hash for v{exc.args[0]}", tool=name) from None
    except (ValueError, chain.ChainError) as exc:
        raise UsageError(f"cannot sign this decision on {name}: {exc}", tool=name) from None
    return record


def sign_state(name: str, manifest: Manifest, signer: Signer, trusted: frozenset[str] | None,
               trust: TrustState | None, *, stamp: Mapping[str, Any],
               accept_manifest: bool, root: Path) -> tuple[Manifest | None, tuple[str, ...]]:
    """The manifest with a `sign-state` record vouching for its pointer and statuses as they
    are (None: the chain's head already says so), and what of the chain it overrides.

    On a chain that disagrees with the manifest, or does not verify, it signs only with
    `accept_manifest` (after keyless decisions, or to restart a broken chain from its valid
    part); never over a head this consumer accepted that the result would not extend."""
    statuses = chain.manifest_statuses(manifest.versions)
    check = chain.verify_chain(manifest.chain, name, trusted)
    prev: str | None
    head = check.head
    overridden: tuple[str, ...] = ()
    if head is not None:
        pointer = chain.pointer_disagreement(head, manifest.current)
        elsewhere = chain.registry_problem(name, head, _identity(root, name, make=False))
        overridden = tuple(([pointer] if pointer else [])
                           + chain.looser_statuses(head, statuses)
                           + chain.content_disagreements(
                               head, chain.manifest_digests(manifest.versions))
                           + ([elsewhere] if elsewhere else []))
        if not overridden:
            return None, ()
        if not accept_manifest:
            raise ChainMismatch(
                f"the decision chain of {name} disagrees with its manifest: "
                f"{'; '.join(overridden)}. Settle it with a decision (dyntools activate, "
                "retire), or sign the manifest over the chain: dyntools sign-state "
                f"{name} --accept-manifest", tool=name, disagreements=list(overridden))
    elif check.length:
        if not accept_manifest:
            raise ChainMismatch(
                f"the decision chain of {name} does not verify: {check.problem}. Restore the "
                f"manifest from a good copy, or sign today's state after the chain's valid "
                f"records: dyntools sign-state {name} --accept-manifest", tool=name)
        overridden = (f"the chain did not verify: {check.problem}",)
    base = check.records
    seq, prev = len(base), (base[-1].digest if base else None)
    record = _signed(signer, name, seq, prev, SIGN_STATE, (), manifest.current, statuses, stamp,
                     registry=_identity(root, name, make=True),
                     digests=chain.manifest_digests(manifest.versions))
    if trust is not None:
        problem = trust.extension_problem(
            name, (*base, chain.parse_record(record, name, seq, prev)))
        if problem is not None:
            raise ChainMismatch(f"nothing was signed: {problem}", tool=name)
    return manifest.with_chain((*(dict(r) for r in manifest.chain[:seq]), record)), overridden
