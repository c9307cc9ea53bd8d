"""Signed decisions, chained: which version a tool serves, and every status it has, as signed
records that each hold the hash of the one before.

A signature over a version record (signing.py) says "this content was approved"; it says
nothing about which version is served now, nor about a retirement. Someone who can write the
manifest but holds no trusted key could move `current` back to a superseded signed version, or
restore a retired version's signed entry from an older copy of the manifest. So every decision
that changes what is served (approve, activate, rollback, retire, reject, ensure when it
activates, sign-state, and alias for a name that serves another tool) appends a record to
the tool's chain, kept in its manifest:

    {"tool": "slugify_text", "registry": "<the registry's identity>", "seq": 2,
     "prev": "<sha256 of record 1>", "action": "activate",
     "versions": [1], "current": 1, "statuses": {"1": "approved", "2": "approved"},
     "sha256": {"1": "<sha256 of v1.py>", "2": "<sha256 of v2.py>"},
     "by": "alice", "time": "...", "reason": "v2 slow", "key": "<base64 Ed25519 key>",
     "signature": "<base64>"}

The signature covers every field but `signature`, as canonical JSON behind the domain prefix
`dyntools-decision-v2`; a record's hash is the SHA-256 of exactly those bytes, and the next
record's `prev` holds it. `current` and `statuses` are the state that results from the
decision, whole (every version the chain knows), so the head alone says what may be served.
`versions` names what the action moved or changed. `sha256` holds the content hash of every
version the record approves (so a record vouches for bytes, not for a number), and
`registry` the identity of the registry it was made in (identity.py), so neither a version
file nor a whole tool folder copied from another registry signed by the same key is served.

What an attacker who can write the registry, but holds no trusted key, can try, and why each
fails (tests/registry/test_decision_chain.py has one test each):

- edit a field of any record: its signature no longer holds;
- sign a record with a key of their own: the head must be signed by a trusted key;
- reorder records, insert one, or replay one of the same tool elsewhere: `seq` and `prev`
  no longer link;
- replay another tool's record: `tool` is signed;
- copy a version file and its manifest entry (or the whole tool folder, chain included) from
  another registry whose decisions the same key signs: the head's `sha256` no longer matches
  the file, or its `registry` is not this one;
- drop the tail, or restore a whole older manifest: the chain is still valid, and only a
  consumer that remembers the head it accepted can tell (freshness.py). A consumer with no
  such state cannot tell a consistent older snapshot from today's (docs/registry.md).

Actions are a table (`ACTIONS`): a record whose action is not in it is refused (a newer
dyntools wrote it, and what it means is unknown here). A later action that needs fields of
its own lists them in `EXTRA_FIELDS`; they are signed like the rest.

Everything here is pure: no file is read or written (core.py writes, state.py reads).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from dyntools.base.toolname import tool_name_problem
from dyntools.gate.findings import sha256_hex
from dyntools.registry.manifest import APPROVED, STATUSES, version_in_range

if TYPE_CHECKING:
    from dyntools.registry.signing import Signer

DOMAIN = b"dyntools-decision-v2\n"
SIGN_STATE = "sign-state"
CONTRACT = "contract"
ALIAS = "alias"

# action -> what its record means. Every record states the resulting pointer and statuses
# whole, so the table says what a reader must understand to trust a record of that name.
ACTIONS: Mapping[str, str] = MappingProxyType({
    SIGN_STATE: "vouches for the pointer and statuses as they are (starts a chain, or "
                "re-anchors one with --accept-manifest)",
    "approve": "a reviewer approved a version (and made it current, unless told not to)",
    "reject": "a reviewer rejected a version: never served",
    "activate": "the pointer moved to an approved version, forward or back",
    "rollback": "the pointer moved back to an earlier approved version",
    "retire": "a version is never served again (the pointer moves below it if it was current)",
    "ensure": "a generated version passed gate and verification and became current",
    CONTRACT: "a version was approved (and made current, unless told not to) under the "
              "counterexamples `contract` names, whole: a repair added one, or a contract "
              "change dropped them; every later version must pass them",
    ALIAS: "the name serves another tool's current version (`target`), or no longer does "
           "(`target` null); the name has no versions of its own",
})
# action -> the fields of its own its records carry (signed with the rest).
EXTRA_FIELDS: Mapping[str, frozenset[str]] = MappingProxyType({
    CONTRACT: frozenset({"contract"}),
    ALIAS: frozenset({"target"}),
})
MAX_CONTRACT = 4096  # counterexamples a tool's signed contract may name

FIELDS = frozenset({"tool", "registry", "seq", "prev", "action", "versions", "current",
                    "statuses", "sha256", "by", "time", "reason", "key"})
STORED_ONLY = "signature"
MAX_TEXT = 4096  # by, time, reason: a person's words, not a payload

_SHA256 = re.compile(r"[0-9a-f]{64}")
_VERSION_KEY = re.compile(r"[1-9][0-9]{0,8}")
_IDENTITY = re.compile(r"[0-9a-f]{32}")

CHAIN_MISMATCH = "chain_mismatch"
NO_CHAIN = "no_chain"
TRUST_STATE = "trust_state"


class ChainError(ValueError):
    """A record that is not well formed, not linked, or not signed; the message says which."""


class ChainRecord(NamedTuple):
    """One verified record of a tool's chain."""

    tool: str
    registry: str  # the identity of the registry the record was made in
    seq: int
    prev: str | None
    action: str
    versions: tuple[int, ...]
    current: int | None
    statuses: Mapping[int, str]
    digests: Mapping[int, str]  # version -> sha256 of its file, for each version it approves
    by: str
    time: str
    reason: str | None
    key: str
    digest: str  # SHA-256 of the signed bytes: what the next record's `prev` holds
    # a `contract` record: the SHA-256 of each counterexample in the tool's contract, whole
    contract: tuple[str, ...] | None = None
    target: str | None = None  # an alias record's: the tool the name serves (None: no longer)

    @property
    def alias(self) -> str | None:
        """The tool this record makes the name serve (an alias record's target), else None:
        a later record of any other action leaves the name no alias."""
        return self.target if self.action == ALIAS else None

    def summary(self) -> str:
        """`#2 activate v1 by alice at <time>`, for messages."""
        moved = " ".join(f"v{v}" for v in self.versions)
        what = f"{self.action} {moved}" if moved else self.action
        if self.action == ALIAS:
            what = f"alias of {self.target}" if self.target else "alias removed"
        return f"#{self.seq} {what} by {self.by} at {self.time}"

    def as_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "digest": self.digest, "action": self.action,
                "versions": list(self.versions), "current": self.current,
                "statuses": {str(v): s for v, s in sorted(self.statuses.items())},
                "sha256": {str(v): d for v, d in sorted(self.digests.items())},
                "registry": self.registry, "by": self.by, "time": self.time,
                "reason": self.reason, "key": self.key,
                **({"contract": list(self.contract)} if self.contract is not None else {}),
                **({"target": self.target} if self.action == ALIAS else {})}


def payload(fields: Mapping[str, Any]) -> bytes:
    """The exact bytes a record's signature covers (every field but the signature)."""
    signed = {k: v for k, v in fields.items() if k != STORED_ONLY}
    return DOMAIN + json.dumps(signed, sort_keys=True, separators=(",", ":"),
                               ensure_ascii=True, allow_nan=False).encode("ascii")


def digest_of(fields: Mapping[str, Any]) -> str:
    return sha256_hex(payload(fields))


def status_map(statuses: Mapping[int, str]) -> dict[str, str]:
    return {str(v): s for v, s in sorted(statuses.items())}


def approved_digests(statuses: Mapping[int, str], known: Mapping[int, str]) -> dict[int, str]:
    """`known`'s hash of each version `statuses` approves (a KeyError names one it lacks)."""
    return {v: known[v] for v, s in sorted(statuses.items()) if s == APPROVED}


def new_record(signer: Signer, *, tool: str, registry: str, seq: int, prev: str | None,
               action: str, versions: Sequence[int], current: int | None,
               statuses: Mapping[int, str], digests: Mapping[int, str],
               by: str, time: str, reason: str | None,
               extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A signed record, in the form the manifest stores. The caller links it (`seq`, `prev`)
    under the registry's writer lock. `extra`: the fields of its own the action carries
    (EXTRA_FIELDS), exactly those."""
    if action not in ACTIONS:
        raise ValueError(f"unknown decision {action!r}")
    if set(extra or {}) != EXTRA_FIELDS.get(action, frozenset()):
        raise ValueError(f"a {action} record carries exactly "
                         f"{sorted(EXTRA_FIELDS.get(action, ()))}")
    for what, text in (("by", by), ("reason", reason or "")):
        if len(text) > MAX_TEXT:
            # A record a reader would refuse must never be written: the tool would stop.
            raise ValueError(f"{what} is longer than {MAX_TEXT} characters")
    fields: dict[str, Any] = {
        "tool": tool, "registry": registry, "seq": seq, "prev": prev, "action": action,
        "versions": sorted(set(versions)), "current": current,
        "statuses": status_map(statuses),
        "sha256": {str(v): d for v, d in sorted(approved_digests(statuses, digests).items())},
        "by": by, "time": time, "reason": reason,
        "key": signer.public_key, **(extra or {}),
    }
    import base64

    fields["signature"] = base64.b64encode(signer.private_key.sign(payload(fields))).decode(
        "ascii")
    return fields


# ------------------------------------------------------------------------------ reading


def _text(raw: Mapping[str, Any], key: str, *, optional: bool = False) -> str | None:
    value = raw.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise ChainError(f"{key} must be text of at most {MAX_TEXT} characters")
    return value


def _version(value: Any, what: str) -> int:
    if not version_in_range(value):
        raise ChainError(f"{what} must be a version number, got {value!r}"[:200])
    assert isinstance(value, int)
    return value


def parse_record(raw: Any, tool: str, seq: int, prev: str | None) -> ChainRecord:
    """Check one stored record's shape and its place in the chain (not its signature)."""
    if not isinstance(raw, Mapping):
        raise ChainError("a record must be an object")
    action = raw.get("action")
    if not isinstance(action, str) or action not in ACTIONS:
        raise ChainError(f"action {str(action)[:40]!r} is not one this dyntools knows (a newer "
                         "version wrote it?)")
    expected = FIELDS | EXTRA_FIELDS.get(action, frozenset()) | {STORED_ONLY}
    if set(raw) != expected:
        odd = sorted(set(raw) ^ expected)
        raise ChainError(f"fields {', '.join(map(str, odd))[:200]} are missing or unknown")
    if raw["tool"] != tool:
        raise ChainError(f"it belongs to tool {str(raw['tool'])[:64]!r}, not {tool!r}")
    if type(raw["seq"]) is not int or raw["seq"] != seq:
        raise ChainError(f"it says it is #{str(raw['seq'])[:20]}, but it is #{seq}: the "
                         "records were reordered, dropped or inserted")
    if raw["prev"] != prev:
        raise ChainError("its prev is not the hash of the record before it: the chain was "
                         "reordered, forked or spliced")
    versions = raw["versions"]
    if not isinstance(versions, list):
        raise ChainError("versions must be a list")
    moved = tuple(_version(v, "versions[]") for v in versions)
    current = raw["current"]
    pointer = None if current is None else _version(current, "current")
    states = _by_version(
        raw["statuses"], "statuses", lambda status: status in STATUSES,
        lambda key, status: f"status {str(status)[:20]!r} of v{key} is not a status")
    registry = raw["registry"]
    if not isinstance(registry, str) or not _IDENTITY.fullmatch(registry):
        raise ChainError("registry must be a registry identity (32 hex digits)")
    digests = _version_digests(raw["sha256"], states)
    for key in ("key", STORED_ONLY):
        _text(raw, key)
    contract = _digests(raw.get("contract")) if action == CONTRACT else None
    target = None
    if action == ALIAS:
        target = raw["target"]
        if target is not None and (not isinstance(target, str) or target == tool
                                   or tool_name_problem(target) is not None):
            raise ChainError("an alias record's target must be another tool's name, or null")
        if moved or pointer is not None or states:
            raise ChainError("an alias record moves no version: a name that is an alias has "
                             "none")
    return ChainRecord(
        tool=tool, registry=registry, seq=seq, prev=prev, action=action, versions=moved,
        current=pointer, statuses=MappingProxyType(states),
        digests=MappingProxyType(digests), by=str(_text(raw, "by")),
        time=str(_text(raw, "time")), reason=_text(raw, "reason", optional=True),
        key=str(raw["key"]), digest=digest_of(raw), contract=contract, target=target,
    )


def _version_digests(raw: Any, states: Mapping[int, str]) -> dict[int, str]:
    """The record's `sha256`: exactly one file hash for each version it approves."""
    digests = _by_version(raw, "sha256", lambda digest: bool(_SHA256.fullmatch(digest)),
                          lambda key, _: f"sha256 of v{key} is not a SHA-256")
    approved = {v for v, s in states.items() if s == APPROVED}
    if set(digests) != approved:
        raise ChainError("sha256 must name exactly the versions the record approves")
    return digests


def _by_version(raw: Any, field: str, valid: Callable[[str], bool],
                wrong: Callable[[str, Any], str]) -> dict[int, str]:
    """A record's object keyed by version number (`statuses`, `sha256`): each key a
    version, each value a string `valid` accepts (else `wrong(key, value)` is the error)."""
    if not isinstance(raw, Mapping):
        raise ChainError(f"{field} must be an object")
    found: dict[int, str] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not _VERSION_KEY.fullmatch(key):
            raise ChainError(f"{field} key {str(key)[:20]!r} is not a version number")
        if not isinstance(value, str) or not valid(value):
            raise ChainError(wrong(key, value))
        found[int(key)] = value
    return found


def _digests(value: Any) -> tuple[str, ...]:
    """A `contract` field: distinct SHA-256 hex digests, sorted, at most MAX_CONTRACT."""
    if not isinstance(value, list) or len(value) > MAX_CONTRACT:
        raise ChainError(f"contract must be a list of at most {MAX_CONTRACT} digests")
    for item in value:
        if not isinstance(item, str) or not _SHA256.fullmatch(item):
            raise ChainError("contract holds something that is not a SHA-256 digest")
    if value != sorted(set(value)):
        raise ChainError("contract must list distinct digests in order")
    return tuple(value)


def signed_contract(records: Sequence[ChainRecord]) -> tuple[ChainRecord | None, frozenset[str]]:
    """The latest `contract` record among verified `records` and the counterexamples it
    signs (none before the first)."""
    for record in reversed(records):
        if record.action == CONTRACT and record.contract is not None:
            return record, frozenset(record.contract)
    return None, frozenset()


def signature_problem(raw: Mapping[str, Any]) -> str | None:
    """None when the record's signature holds under the key it names."""
    import base64
    import binascii

    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(raw["key"], validate=True))
        public.verify(base64.b64decode(raw[STORED_ONLY], validate=True), payload(raw))
    except (InvalidSignature, ValueError, binascii.Error):
        return "its signature does not hold (a field was edited, or it was signed otherwise)"
    return None


class ChainCheck(NamedTuple):
    """A chain read record by record: the verified records, and why it stops, if it does."""

    records: tuple[ChainRecord, ...]  # the leading records that are well formed, linked, signed
    problem: str | None  # None: every record verified (and, with trusted keys, the head's key)
    length: int  # how many records the manifest holds

    @property
    def head(self) -> ChainRecord | None:
        return self.records[-1] if self.problem is None and self.records else None


def verify_chain(raw_chain: Sequence[Any], tool: str, trusted: frozenset[str] | None,
                 accepted: tuple[int, str] | None = None) -> ChainCheck:
    """Every record well formed, linked to the one before and signed under its key; with
    `trusted`, the head signed by one of them. Earlier records may be signed by a key no
    longer trusted: the head states the whole state, so a key can leave the trusted file
    without rewriting history. Never raises: any failure (a RecursionError or MemoryError
    included) is the problem it reports.

    `accepted` is the (seq, hash) of a head this consumer verified and accepted before: when
    the chain holds exactly that record there, the records up to it are the ones whose
    signatures it checked then (each `prev` commits to everything before it), so only the
    records after it are verified again (an Ed25519 check is ~0.1-0.3 ms)."""
    records: list[ChainRecord] = []
    try:
        prev: str | None = None
        stopped: tuple[int, str] | None = None
        for seq, raw in enumerate(raw_chain):
            try:
                record = parse_record(raw, tool, seq, prev)
            except ChainError as exc:
                stopped = (seq, str(exc))
                break
            records.append(record)
            prev = record.digest
        known = -1
        if accepted is not None and 0 <= accepted[0] < len(records) and (
                records[accepted[0]].digest == accepted[1]):
            known = accepted[0]
        for seq in range(known + 1, len(records)):
            problem = signature_problem(raw_chain[seq])
            if problem is not None:
                stopped = (seq, problem)
                break
        if stopped is not None:
            return ChainCheck(tuple(records[:stopped[0]]),
                              f"record #{stopped[0]} does not verify: {stopped[1]}",
                              len(raw_chain))
        if trusted is not None and records and records[-1].key not in trusted:
            return ChainCheck(tuple(records), f"its head ({records[-1].summary()}) is signed "
                              f"by a key that is not trusted ({records[-1].key[:12]}...)",
                              len(raw_chain))
    except Exception as exc:  # a check that breaks refuses: fail closed
        return ChainCheck(tuple(records),
                          f"the chain cannot be checked ({type(exc).__name__})", len(raw_chain))
    return ChainCheck(tuple(records), None, len(raw_chain))


# --------------------------------------------------------------- the chain against the manifest


def manifest_statuses(versions: Mapping[int, Any]) -> dict[int, str]:
    """Each recorded version's status as the manifest records it (VersionEntry.status)."""
    return {v: entry.status for v, entry in versions.items()}


def manifest_digests(versions: Mapping[int, Any]) -> dict[int, str]:
    """Each recorded version's file hash as the manifest records it (VersionEntry.sha256)."""
    return {v: entry.sha256 for v, entry in versions.items()}


def looser_statuses(head: ChainRecord, statuses: Mapping[int, str]) -> list[str]:
    """Each version the manifest records as approved that the head does not approve (a
    status may be stricter than the chain, e.g. quarantined, never looser)."""
    found = []
    for version, status in sorted(statuses.items()):
        said = head.statuses.get(version)
        if status == APPROVED and said != APPROVED:
            found.append(f"v{version} is approved in the manifest, but the chain "
                         + (f"says {said}" if said else "never approved it"))
    return found


def content_disagreements(head: ChainRecord, digests: Mapping[int, str]) -> list[str]:
    """Each version whose file hash in the manifest is not the one the head approved."""
    return [f"v{version}'s content (sha256 {digests[version][:12]}...) is not what the "
            f"chain approved (sha256 {said[:12]}...): the file and its manifest entry were "
            "replaced"
            for version, said in sorted(head.digests.items())
            if version in digests and digests[version] != said]


def registry_problem(tool: str, head: ChainRecord, registry: str | None) -> str | None:
    """Why the head does not belong to the registry being read (None: it does)."""
    if registry is None:
        return (f"the decision chain of {tool} names registry {head.registry[:12]}..., and "
                "this registry has no identity file: a chain copied from elsewhere?")
    if head.registry != registry:
        return (f"the decision chain of {tool} was signed in another registry "
                f"({head.registry[:12]}...), not this one ({registry[:12]}...): the tool "
                "folder was copied from there")
    return None


def pointer_disagreement(head: ChainRecord, current: int | None) -> str | None:
    if current == head.current:
        return None
    return (f"the manifest's pointer is {_v(current)}, but the chain's head "
            f"({head.summary()}) says {_v(head.current)}")


def _v(version: int | None) -> str:
    return f"v{version}" if version is not None else "none"


class ChainVerdict(NamedTuple):
    """What a tool's chain says about what it may serve, with trusted keys configured.

    `code` is None when the manifest's pointer is what a valid, fresh chain head says (or
    when nothing is served and no chain is needed); else NO_CHAIN, CHAIN_MISMATCH or
    TRUST_STATE, with `problem` (a sentence) and `hint` (the command that settles it).
    `head` is the chain's head when the chain verified and is fresh; `disagreements` list
    every place the manifest is looser than it (those that do not touch the served version
    leave it served, and make `review` fail)."""

    code: str | None
    problem: str | None = None
    head: ChainRecord | None = None
    records: tuple[ChainRecord, ...] = ()
    disagreements: tuple[str, ...] = ()
    hint: str | None = None
    length: int = 0

    @property
    def needs_attention(self) -> bool:
        return self.code is not None or bool(self.disagreements)

    def refused(self, code: str, problem: str, hint: str | None = None) -> ChainVerdict:
        """This verdict, refused: nothing of the tool is served."""
        return self._replace(code=code, problem=problem, head=None, hint=hint or self.hint)

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "problem": self.problem, "hint": self.hint,
                "length": self.length,
                "head": self.head.as_dict() if self.head is not None else None,
                "disagreements": list(self.disagreements)}


def sign_state_hint(tool: str) -> str:
    return f"dyntools sign-state {tool} --sign-key FILE"


def judge(tool: str, raw_chain: Sequence[Any], current: int | None,
          statuses: Mapping[int, str], trusted: frozenset[str],
          accepted: tuple[int, str] | None = None, *, alias: str | None = None,
          registry: str | None, digests: Mapping[int, str]) -> ChainVerdict:
    """The verdict on a tool whose manifest has this chain, pointer, statuses and file hashes
    (`digests`), in the registry whose identity is `registry` (and, for a name that is an
    alias, `alias`: the tool it serves). Freshness is freshness.py's, applied after;
    `accepted` only spares re-verifying what it covers."""
    if not raw_chain:
        if current is None and alias is None:
            return ChainVerdict(None)  # nothing is served: nothing needs vouching for
        if alias is not None:
            return ChainVerdict(
                NO_CHAIN, f"{tool} is recorded as an alias of {alias}, and no signed decision "
                          "made it one (trusted keys are configured)",
                hint=f"dyntools alias {tool} {alias} --sign-key FILE")
        return ChainVerdict(
            NO_CHAIN, f"{tool} has no decision chain, and trusted keys are configured: no "
                      f"signed decision says v{current} is current", hint=sign_state_hint(tool))
    check = verify_chain(raw_chain, tool, trusted, accepted)
    head = check.head
    if head is None:
        return ChainVerdict(
            CHAIN_MISMATCH, f"the decision chain of {tool} does not verify: {check.problem}",
            records=check.records, length=check.length,
            hint=f"restore the manifest from a good copy, or sign today's state over it: "
                 f"dyntools sign-state {tool} --accept-manifest --sign-key FILE")
    elsewhere = registry_problem(tool, head, registry)
    if elsewhere is not None:
        return ChainVerdict(
            CHAIN_MISMATCH, elsewhere, records=check.records, length=check.length,
            hint="restore this registry's own copy of the tool (a chain cannot move between "
                 "registries)")
    if alias is not None and head.alias != alias:
        said = f"of {head.alias}" if head.alias else "none"
        return ChainVerdict(
            CHAIN_MISMATCH, f"the manifest makes {tool} an alias of {alias}, but the chain's "
                            f"head ({head.summary()}) says alias {said}",
            records=check.records, length=check.length,
            hint=f"dyntools unalias {tool} --sign-key FILE, or dyntools alias {tool} "
                 f"{head.alias or alias} --sign-key FILE")
    looser = looser_statuses(head, statuses)
    replaced = content_disagreements(head, digests)
    pointer = pointer_disagreement(head, current)
    disagreements = tuple(([pointer] if pointer else []) + looser + replaced)
    if pointer is None and current is not None and current in head.digests and (
            current in digests) and (
            digests[current] != head.digests[current]):
        # The served version's bytes are not the ones the chain approved: nothing is served.
        return ChainVerdict(
            CHAIN_MISMATCH, content_disagreements(head, {current: digests[current]})[0],
            head=head, records=check.records,
            disagreements=disagreements, length=check.length,
            hint="restore the version file and manifest from a good copy of this registry")
    if pointer is not None:
        return ChainVerdict(
            CHAIN_MISMATCH, pointer, head=head, records=check.records,
            disagreements=disagreements, length=check.length,
            hint=f"dyntools activate {tool} {head.current} --sign-key FILE restores the "
                 "chain's pointer" if head.current is not None else
            f"dyntools retire {tool} VERSION --sign-key FILE, or restore the manifest")
    return ChainVerdict(None, head=head, records=check.records, disagreements=disagreements,
                        length=check.length,
                        hint=(f"dyntools retire {tool} VERSION --sign-key FILE for each version "
                              "the chain does not approve" if disagreements else None))
