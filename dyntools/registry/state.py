"""Building a tool's state from what is on disk: its manifest, its version files and the open
rule's checks (checks.py), turned into the records and the effective pointer the registry
hands out. The registry (core.py) reads and writes; this module only looks.

A state's records are checked when they are read, each at most once (`VersionRecords`): the
pointer's fallback reads them from the recorded pointer down until one is usable, so serving
a tool hash-checks and re-gates the versions it might serve and no others, while `review` and
`list`, which read every record, check every version. A record is never handed out before its
version file has passed the checks for its own bytes.

    builder = StateBuilder(root, policy, trusted_keys)
    state = builder.build("slugify_text", use_cache=False, notice=Notice.OPENING)
    state.current            # the newest usable version at or below the pointer: checked
    state.records[1]         # checked now, if it was not already

Every check that ends in quarantine is logged once, as it is found (`registry.quarantined`
with the reason code and the file), at the level the `Notice` says.
"""

from __future__ import annotations

import contextlib
import enum
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from dyntools.base.log import get_logger
from dyntools.base.toolname import tool_name_problem
from dyntools.gate.policy import Policy
from dyntools.registry import checks, signing
from dyntools.registry.checks import VersionCheck
from dyntools.registry.manifest import (
    APPROVED,
    MANIFEST_NAME,
    MAX_MANIFEST_BYTES,
    QUARANTINED,
    RETIRED,
    Manifest,
    ManifestError,
    VersionEntry,
    parse_manifest,
    parse_version_file_name,
    version_file_name,
)
from dyntools.registry.records import (
    StatKey,
    ToolState,
    Unrecorded,
    VersionRecord,
    effective_current,
    stat_key,
)
from dyntools.registry.store import TEMP_PREFIX, is_real_dir, read_regular

if TYPE_CHECKING:
    from dyntools.registry.chain import ChainVerdict
    from dyntools.registry.freshness import TrustState


class Notice(enum.Enum):
    """How loudly a state's problems are logged as they are found."""

    OPENING = "opening"  # an eager open: each problem at info, one summary warning after
    FIRST_USE = "first_use"  # a tool read for the first time from a lazy registry: warning
    CHANGE = "change"  # a refresh or a write changed what is served: error


class VersionRecords(Mapping[int, VersionRecord]):
    """A tool's records, each checked the first time it is read (thread-safe, at most once).

    Iterating, `len` and `in` read only the manifest's version numbers; `records[v]`,
    `.get(v)`, `.values()` and `.items()` check what they return."""

    __slots__ = ("_done", "_entries", "_evaluate", "_lock")

    def __init__(self, entries: Mapping[int, VersionEntry],
                 evaluate: Callable[[VersionEntry], VersionRecord],
                 done: Mapping[int, VersionRecord] | None = None) -> None:
        self._entries = entries
        self._evaluate = evaluate
        self._done: dict[int, VersionRecord] = dict(done or {})
        self._lock = threading.Lock()

    def __getitem__(self, version: int) -> VersionRecord:
        record = self._done.get(version)
        if record is not None:
            return record
        entry = self._entries[version]  # KeyError for a version the manifest does not hold
        with self._lock:
            record = self._done.get(version)
            if record is None:
                record = self._done[version] = self._evaluate(entry)
        return record

    def __iter__(self) -> Iterator[int]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, version: object) -> bool:
        return version in self._entries

    def checked(self) -> dict[int, VersionRecord]:
        """The records read so far (nothing is checked by asking)."""
        with self._lock:
            return dict(self._done)

    def extended(self, entry: VersionEntry, record: VersionRecord) -> VersionRecords:
        """These records plus a version just written (`record` is its check's outcome)."""
        entries = {**self._entries, entry.version: entry}
        return VersionRecords(entries, self._evaluate, {**self.checked(),
                                                        entry.version: record})


def checked_records(state: ToolState) -> dict[int, VersionRecord]:
    records = state.records
    return records.checked() if isinstance(records, VersionRecords) else dict(records)


CheckCache = dict[tuple[str, int], tuple[StatKey, str, VersionCheck]]


class StateBuilder:
    """Reads a registry's folders into `ToolState`s. Keeps three caches, none of which can
    make a changed file look unchanged: parsed manifests by their exact bytes; the bytes each
    tool's state was built from; and, for refreshes only (`use_cache=True`), each version's
    check by its file's (inode, size, mtime, ctime) and recorded hash."""

    def __init__(self, root: Path, policy: Policy,
                 trusted_keys: frozenset[str] | None = None,
                 trust: TrustState | None = None) -> None:
        self.root = root
        self.policy = policy
        self.trusted_keys = trusted_keys
        # With trusted keys: the heads this consumer accepted (freshness.py).
        self.trust = trust
        self._check_cache: CheckCache = {}
        self._manifest_cache: dict[str, tuple[bytes, Manifest]] = {}
        self._state_source: dict[str, bytes | None] = {}
        self._identity: str | None = None  # the registry identity, as first read with a chain
        self._identity_lock = threading.Lock()

    # ------------------------------------------------------------------------- the folders

    def scan(self) -> tuple[list[str], list[Unrecorded]]:
        """The tool folders at the root (sorted) and the entries that are not tools."""
        names: list[str] = []
        stray: list[Unrecorded] = []
        for entry in sorted(os.scandir(self.root), key=lambda e: e.name):
            if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                if entry.is_symlink():
                    stray.append(Unrecorded(entry.name, Path(entry.path), None,
                                            "a symlink in the registry is never followed"))
                continue
            if tool_name_problem(entry.name) is not None:
                stray.append(Unrecorded(entry.name, Path(entry.path), None,
                                        "folder name is not a valid tool name"))
                continue
            names.append(entry.name)
        return names, stray

    def read_manifest(self, name: str) -> tuple[Manifest | None, bytes | None]:
        """The manifest on disk and its bytes; (None, None) if the tool has none. Raises
        ManifestError. Parsing is skipped when the bytes equal the last ones parsed."""
        path = self.root / name / MANIFEST_NAME
        try:
            # One byte over the limit is enough for parse_manifest to refuse it.
            data = read_regular(path, limit=MAX_MANIFEST_BYTES)
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            raise ManifestError(f"{MANIFEST_NAME} cannot be read: {exc.strerror or exc}") from exc
        cached = self._manifest_cache.get(name)
        if cached is not None and cached[0] == data:
            return cached[1], data
        manifest = parse_manifest(data, name)
        self._manifest_cache[name] = (data, manifest)
        return manifest, data

    def remember(self, manifest: Manifest, data: bytes) -> None:
        """A writer just wrote `data` as the manifest the tool's state is now built from."""
        self._manifest_cache[manifest.name] = (data, manifest)
        self._state_source[manifest.name] = data

    def built_from(self, name: str) -> bytes | None:
        """The manifest bytes the tool's last state was built from (None: unknown)."""
        return self._state_source.get(name)

    def max_version_on_disk(self, name: str) -> int:
        """The highest vN.py in the folder, recorded or not (a killed writer's orphan)."""
        return max(self._version_files(name), default=0)

    def _version_files(self, name: str) -> dict[int, Path]:
        files: dict[int, Path] = {}
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            for entry in os.scandir(self.root / name):
                version = parse_version_file_name(entry.name)
                if version is not None:
                    files[version] = Path(entry.path)
        return files

    def _other_files(self, name: str) -> list[Path]:
        others: list[Path] = []
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            for entry in os.scandir(self.root / name):
                if entry.name == MANIFEST_NAME or entry.name.startswith(TEMP_PREFIX):
                    continue
                if parse_version_file_name(entry.name) is None:
                    others.append(Path(entry.path))
        return others

    # -------------------------------------------------------------------------- the checks

    def check(self, name: str, entry: VersionEntry, *, use_cache: bool) -> VersionCheck:
        """The open rule for one recorded version (checks.py)."""
        if entry.status == RETIRED:
            return VersionCheck.passed()  # never served: its bytes are not re-gated
        path = self.root / name / version_file_name(entry.version)
        key = (name, entry.version)
        key_now = stat_key(path)
        if use_cache and key_now is not None:
            cached = self._check_cache.get(key)
            if cached is not None and cached[0] == key_now and cached[1] == entry.sha256:
                return cached[2]
        result = checks.check_version(path, entry, self.policy)
        if key_now is not None and stat_key(path) == key_now:
            self._check_cache[key] = (key_now, entry.sha256, result)
        else:
            self._check_cache.pop(key, None)
        return result

    def trust_written(self, name: str, entry: VersionEntry) -> VersionCheck:
        """The check of a version file this process has just written from gated bytes: the
        next refresh skips it while its metadata stays the same."""
        passed = VersionCheck.passed()
        key_now = stat_key(self.root / name / version_file_name(entry.version))
        if key_now is not None:
            self._check_cache[(name, entry.version)] = (key_now, entry.sha256, passed)
        return passed

    def forget(self, name: str, version: int) -> None:
        """Force the next check of this version to read and re-gate its file in full."""
        self._check_cache.pop((name, version), None)

    def record(self, name: str, entry: VersionEntry, result: VersionCheck) -> VersionRecord:
        """What a recorded version is now: its entry, overridden by a failed check and, with
        trusted keys, by a missing or bad signature."""
        status, reason, reason_code = entry.status, entry.reason, None
        if entry.status == QUARANTINED:
            reason_code = checks.RECORDED
        if entry.status == RETIRED:
            # A reviewer retired it: never served, and no longer a problem whatever its file
            # now holds (that is what retiring a tampered version acknowledges).
            reason_code = "retired"
        elif not result.ok:
            # A failed check overrides every other recorded status: review must show
            # tampering even of a rejected version.
            status, reason, reason_code = QUARANTINED, result.reason, result.reason_code
        elif entry.status == APPROVED and self.trusted_keys is not None:
            problem = signing.check_signature(name, entry.version, entry.sha256, entry.status,
                                              entry.policy_digest, entry.signature,
                                              self.trusted_keys)
            if problem is not None:
                status, reason_code, reason = QUARANTINED, problem[0], problem[1]
        return VersionRecord(
            name=name,
            version=entry.version,
            path=self.root / name / version_file_name(entry.version),
            status=status,
            reason=reason,
            reason_code=reason_code,
            recorded_status=entry.status,
            sha256=entry.sha256,
            size=entry.size,
            created=entry.created,
            policy_digest=entry.policy_digest,
            provenance=entry.provenance,
            gate=entry.gate,
            findings=result.findings if entry.status != RETIRED else (),
            decisions=entry.decisions,
            signature=entry.signature,
        )

    def checked_record(self, name: str, entry: VersionEntry, *,
                       use_cache: bool) -> VersionRecord:
        return self.record(name, entry, self.check(name, entry, use_cache=use_cache))

    # --------------------------------------------------------------------------- the state

    def build(
        self,
        name: str,
        *,
        use_cache: bool,
        notice: Notice,
        manifest: Manifest | None = None,
        before: ToolState | None = None,
    ) -> ToolState:
        """The tool's state from disk (or from `manifest`, which a writer has just written).
        Only the versions the pointer needs are checked here, plus those `before` (the
        state this one replaces) had checked: a refresh keeps watching what was read."""
        folder = self.root / name
        if os.path.lexists(folder) and not is_real_dir(folder):
            # `open` never enters a symlinked tool folder; a refresh of one name (watch, the
            # pipeline's lookup) must not either, or a swapped-in symlink would be served.
            self._state_source.pop(name, None)
            return ToolState(
                name=name,
                error="the tool folder is not a real folder (a symlink?); nothing in it is "
                      "trusted",
                unrecorded=(Unrecorded(name, folder, None, "tool folder is not a real folder"),),
            )
        if manifest is None:
            try:
                manifest, data = self.read_manifest(name)
                self._state_source[name] = data
            except ManifestError as exc:
                self._state_source.pop(name, None)
                return ToolState(
                    name=name,
                    error=f"{MANIFEST_NAME} is invalid ({exc}); no version of this tool is trusted",
                    unrecorded=tuple(
                        Unrecorded(name, p, v, "the manifest is invalid")
                        for v, p in sorted(self._version_files(name).items())
                    ),
                )
        files = self._version_files(name)
        if manifest is None:
            return ToolState(
                name=name,
                unrecorded=tuple(
                    Unrecorded(name, p, v, "the tool folder has no manifest; run approve")
                    for v, p in sorted(files.items())
                ),
            )
        known = checked_records(before) if before is not None else {}
        records = VersionRecords(manifest.versions,
                                 self._evaluator(name, use_cache, notice, known))
        unrecorded = [
            Unrecorded(name, p, v, "not recorded in the manifest; run approve to trust it")
            for v, p in sorted(files.items())
            if v not in manifest.versions
        ]
        unrecorded += [
            Unrecorded(name, p, None, "not a version file")
            for p in sorted(self._other_files(name))
        ]
        for version in known:
            records.get(version)  # re-checked now: a refresh must see an edit of what it read
        verdict = self.chain_verdict(manifest)
        return ToolState(
            name=name,
            records=records,
            current=served_current(manifest.current, records, verdict),
            recorded_current=manifest.current,
            unrecorded=tuple(unrecorded),
            history=manifest.history,
            chain=verdict,
            alias=manifest.alias,
        )

    def chain_verdict(self, manifest: Manifest) -> ChainVerdict | None:
        """With trusted keys, what the tool's decision chain says, judged against this
        consumer's accepted heads (freshness); None without trusted keys."""
        if self.trusted_keys is None:
            return None
        from dyntools.registry.chain import (
            CHAIN_MISMATCH,
            ChainVerdict,
            judge,
            manifest_digests,
            manifest_statuses,
        )
        from dyntools.registry.identity import IdentityError, read_identity

        try:
            accepted = self.trust.accepted(manifest.name) if self.trust is not None else None
            try:
                identity = self._pinned_identity(read_identity(self.root))
            except IdentityError as exc:
                return ChainVerdict(CHAIN_MISMATCH, f"the decision chain of {manifest.name} "
                                    f"cannot be checked: {exc}")
            verdict = judge(manifest.name, manifest.chain, manifest.current,
                            manifest_statuses(manifest.versions), self.trusted_keys, accepted,
                            alias=manifest.alias, registry=identity,
                            digests=manifest_digests(manifest.versions))
        except Exception as exc:  # a check that breaks refuses: fail closed
            return ChainVerdict(CHAIN_MISMATCH, f"the decision chain of {manifest.name} "
                                f"cannot be checked ({type(exc).__name__})")
        return self.trust.admit(manifest.name, verdict) if self.trust is not None else verdict

    def _pinned_identity(self, identity: str | None) -> str | None:
        """The registry's identity as this process first read it: a later change (another
        registry's `identity` copied in, with its tool folders) refuses every chained tool
        instead of vouching for the copies."""
        from dyntools.registry.identity import IdentityError

        with self._identity_lock:
            if self._identity is None:
                self._identity = identity
            elif identity != self._identity:
                raise IdentityError(
                    f"the registry's identity changed while this process read it (from "
                    f"{self._identity[:12]}... to {str(identity)[:12]}...): its identity "
                    "file was replaced")
        return identity

    def extended(self, state: ToolState, manifest: Manifest, entry: VersionEntry,
                 result: VersionCheck) -> ToolState | None:
        """`state` plus the version a writer just added under `manifest`, or None when the
        state cannot be extended (the caller rebuilds it)."""
        if not isinstance(state.records, VersionRecords) or self.trusted_keys is not None:
            return None  # with trusted keys, the chain is judged again: rebuild
        records = state.records.extended(entry, self.record(state.name, entry, result))
        return ToolState(
            name=state.name,
            records=records,
            current=effective_current(manifest.current, records),
            recorded_current=manifest.current,
            error=state.error,
            unrecorded=state.unrecorded,
            history=manifest.history,
        )

    def _evaluator(self, name: str, use_cache: bool, notice: Notice,
                   known: Mapping[int, VersionRecord]) -> Callable[[VersionEntry], VersionRecord]:
        def evaluate(entry: VersionEntry) -> VersionRecord:
            record = self.checked_record(name, entry, use_cache=use_cache)
            old = known.get(entry.version)
            if record.status == QUARANTINED and (
                old is None or old.status != QUARANTINED or old.reason != record.reason
            ):
                log_quarantine(record, notice)
            return record

        return evaluate


def served_current(recorded: int | None, records: Mapping[int, VersionRecord],
                   verdict: ChainVerdict | None) -> int | None:
    """The version new calls go to. Without trusted keys: the recorded pointer if usable,
    else the newest usable version below it. With them: the pointer, only when the chain
    vouches for it and it is usable, and never a fallback (a fallback would serve what no
    signed decision says is current: a superseded version, after the current one's file was
    made to fail its check)."""
    if verdict is None:
        return effective_current(recorded, records)
    if verdict.code is not None or recorded is None or recorded not in records:
        return None
    if verdict.head is None or verdict.head.statuses.get(recorded) != APPROVED:
        return None  # the head makes it current without approving it: nothing is served
    return recorded if records[recorded].usable else None


def log_quarantine(record: VersionRecord, notice: Notice) -> None:
    log = get_logger("registry")
    emit = {Notice.OPENING: log.info, Notice.FIRST_USE: log.warning,
            Notice.CHANGE: log.error}[notice]
    emit("registry.quarantined", tool=record.name, version=record.version,
         reason_code=record.reason_code, reason=record.reason, path=str(record.path),
         **({"hint": "dyntools review shows every detail"} if notice is Notice.FIRST_USE
            else {}))


# notice -> the log levels of (an invalid manifest, an unrecorded file, a pointer fallback):
# opening logs each problem at info (one summary warning follows); a tool's first use warns
# of what changes serving, once: an untrusted manifest, or the quarantine (logged as it is
# found) that a fallback follows from; a change says everything.
_LEVELS = {
    Notice.OPENING: ("info", "info", "info"),
    Notice.FIRST_USE: ("warning", "info", "info"),
    Notice.CHANGE: ("error", "warning", "warning"),
}


def log_transitions(before: ToolState | None, after: ToolState, notice: Notice) -> None:
    """The changes from `before` to `after` that are not version checks (those are logged
    as they are found): an invalid manifest, files no manifest records, a pointer that
    fell back."""
    log = get_logger("registry")
    invalid, unrecorded, fallback = (getattr(log, level) for level in _LEVELS[notice])
    if after.error and (before is None or before.error != after.error):
        invalid("registry.manifest_invalid", tool=after.name, reason=after.error)
    old_unrecorded = {u.path for u in before.unrecorded} if before else set()
    for item in after.unrecorded:
        if item.path not in old_unrecorded:
            unrecorded("registry.unrecorded", tool=after.name, path=str(item.path),
                       version=item.version, reason=item.reason)
    refused = after.chain is not None and after.chain.code is not None
    if refused and after.chain is not None and (
        before is None or before.chain is None or before.chain.problem != after.chain.problem
    ):
        invalid("registry.chain_refused", tool=after.name, reason_code=after.chain.code,
                reason=after.chain.problem, hint=after.chain.hint)
    if not refused and after.current != after.recorded_current and (
        before is None or before.current != after.current
    ):
        fallback("registry.pointer_fallback", tool=after.name,
                 recorded=after.recorded_current, effective=after.current)


def open_problems(states: Mapping[str, ToolState], stray: tuple[Unrecorded, ...]) -> list[str]:
    """One short line per problem of an eagerly opened registry (for its summary warning)."""
    problems: list[str] = []
    for state in states.values():
        if state.error:
            problems.append(f"{state.name}: manifest invalid: {state.error}")
        chain = state.chain
        if chain is not None and chain.needs_attention:
            said = chain.problem or "; ".join(chain.disagreements)
            problems.append(f"{state.name}: {chain.code or 'chain disagrees'}: {said}")
        for version, record in sorted(state.records.items()):
            if record.status == QUARANTINED:
                problems.append(f"{state.name} v{version}: {record.reason_code}: "
                                f"{record.reason}")
        problems += [f"{state.name}: unrecorded {u.path.name}" for u in state.unrecorded]
    problems += [f"unrecorded {u.path.name}" for u in stray]
    return problems

