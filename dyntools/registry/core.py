"""The registry: persisted tool versions, checked before they are trusted.

    <root>/
      .lock                      cross-process writer lock (filelock)
      <name>/manifest.json       versions, provenance, verdicts, the current pointer
      <name>/v1.py, v2.py, ...   immutable version files (0444)

No version is handed out before its file has been hash-checked and re-gated in this process
(the open rule, checks.py): a version that fails is quarantined (in memory, with a reason
and a log line) and a pointer that names it falls back to the newest good version below it,
or to none. Quarantine is recomputed on every open and refresh rather than written back, so
a read-only `review` never modifies the registry; `quarantine()` records a reviewer's
quarantine in the manifest.

`Registry.open` checks every persisted version before it returns (what `review`, `list` and
a library caller who wants the whole picture need). `Registry.open(..., lazy=True)` (what
`call`, `ensure` and the servers use) reads a tool's folder when the tool is first asked
for, and checks only the versions its pointer needs, when they are needed: opening costs the
same for one version or a thousand, and what is served is checked exactly as strictly.
Building a tool's state from disk is state.py's job; this module answers readers and runs
the writers.

Writers (add, activate, rollback, approve, quarantine) take the writer lock, re-read the
manifest from disk, write the version file durably, and only then move the pointer by
atomically replacing the manifest.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from dyntools.base import interrupts
from dyntools.base.log import get_logger
from dyntools.errors import (
    ChainMismatch,
    DyntoolsError,
    GateRejected,
    NoChain,
    PersistError,
    RegistryError,
    SigningKeyRequired,
    TrustStateError,
    UnknownTool,
    UnknownVersion,
    UsageError,
    VersionUnusable,
)
from dyntools.gate import check_source
from dyntools.gate.findings import GateReport, sha256_hex
from dyntools.gate.policy import Policy
from dyntools.registry import checks, signing
from dyntools.registry.config import RegistryConfig, read_config
from dyntools.registry.manifest import (
    APPROVED,
    MANIFEST_NAME,
    MAX_VERSION,
    PENDING,
    QUARANTINED,
    REJECTED,
    RETIRED,
    Manifest,
    ManifestError,
    VersionEntry,
    dump_manifest,
    utc_now,
    version_file_name,
    version_in_range,
)
from dyntools.registry.policyload import load_allowlist
from dyntools.registry.records import (
    ToolState,
    Unrecorded,
    VersionRecord,
    require_valid_name,
    resolve_registry_path,
)
from dyntools.registry.state import Notice, StateBuilder, log_transitions, open_problems
from dyntools.registry.store import (
    MANIFEST_MODE,
    WriterLock,
    WriterLockTimeout,
    fsync_dir,
    is_real_dir,
    link_new,
    publish,
    read_regular,
    remove_stale_temps,
    sync_all,
    write_replace,
    write_temp,
)

if TYPE_CHECKING:
    from dyntools.registry.chain import ChainRecord
    from dyntools.registry.freshness import TrustState
    from dyntools.registry.watch import RegistryWatcher


class SignedState(NamedTuple):
    """What `Registry.sign_state` did for one tool."""

    name: str
    appended: bool  # False: the chain's head already says what the manifest says
    head: ChainRecord | None  # the chain's head now
    overridden: tuple[str, ...] = ()  # what the manifest said against the chain, now signed
    # Approved versions whose own record carries no signature: the chain now vouches for
    # the pointer, not for their content; with trusted keys they stay quarantined until a
    # signed decision on each (activate) says it read them.
    unsigned: tuple[int, ...] = ()


class Registry:
    """Open with `Registry.open(path, policy)`; see the module docstring for the rules."""

    def __init__(self, root: Path, policy: Policy, *,
                 trusted_keys: frozenset[str] | None = None,
                 config: RegistryConfig | None = None, lazy: bool = False,
                 trust_state: str | os.PathLike[str] | None = None) -> None:
        self.root = root
        self.policy = policy
        # With trusted keys, an approved version is served only with a valid signature from
        # one of them (quarantine reasons `unsigned`, `bad_signature`), a tool only when its
        # pointer is what its decision chain's head says (chain.py), and that head no older
        # than the one this consumer accepted before (freshness.py).
        self.trusted_keys = trusted_keys
        self.config = config if config is not None else RegistryConfig()
        self.lazy = lazy
        self._opened = False
        self._lock = WriterLock(root)
        self._state_lock = threading.RLock()
        self._trust: TrustState | None = None
        if trusted_keys is not None:
            from dyntools.registry.freshness import TrustState

            self._trust = TrustState(root, trust_state)
        self._builder = StateBuilder(root, policy, trusted_keys, self._trust)
        # Every tool folder seen at the root; those read so far have a state. An eager
        # registry reads them all on open (and checks every version); a lazy one on use.
        self._names: set[str] = set()
        self._tools: dict[str, ToolState] = {}
        self._stray: tuple[Unrecorded, ...] = ()
        self._listeners: list[Callable[[str], None]] = []

    # ----------------------------------------------------------------- opening and reading

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        policy: Policy | None = None,
        *,
        create: bool = True,
        trusted_keys: frozenset[str] | None = None,
        lazy: bool = False,
        trust_state: str | os.PathLike[str] | None = None,
    ) -> Registry:
        """Open (creating if asked) the registry at `path` and check every persisted version
        (with `lazy`, each version when it is first needed instead: see the module docstring).

        `trusted_keys` (base64 Ed25519 public keys, see signing.py): every approved version
        must carry a valid signature by one of them, and every served tool a valid decision
        chain whose head says what is served. Without it, `DYNTOOLS_TRUSTED_KEYS` names a
        file of them, if set. `trust_state`: the folder of the accepted chain heads
        (freshness.py; default `DYNTOOLS_TRUST_STATE`, else under `$XDG_STATE_HOME`)."""
        root = resolve_registry_path(path)
        if trusted_keys is None and os.environ.get(signing.TRUSTED_KEYS_ENV):
            trusted_keys = signing.load_trusted_keys(os.environ[signing.TRUSTED_KEYS_ENV])
        if os.path.lexists(root) and not root.is_dir():
            # The root itself may be a symlink to a folder; nothing inside may be.
            raise UsageError(f"registry {root} is not a folder", path=str(root))
        if create and not root.exists():
            try:
                root.mkdir(parents=True)
                fsync_dir(root.parent)
            except OSError as exc:
                raise PersistError(f"cannot create registry {root}: {exc.strerror or exc}",
                                   path=str(root)) from exc
        policy = policy if policy is not None else load_allowlist()
        if not create and not os.path.lexists(root):
            # Nothing persisted yet: an empty registry; writes will fail.
            return cls(root, policy, trusted_keys=trusted_keys, lazy=lazy,
                       trust_state=trust_state)
        if not os.access(root, os.R_OK | os.X_OK):
            raise UsageError(f"registry {root} cannot be read (permission denied)",
                             path=str(root))
        registry = cls(root, policy, trusted_keys=trusted_keys, config=read_config(root),
                       lazy=lazy, trust_state=trust_state)
        try:
            registry._load_all(use_cache=False)
        except OSError as exc:
            raise UsageError(f"registry {root} cannot be read: {exc.strerror or exc}",
                             path=str(root)) from None
        return registry

    @property
    def approval(self) -> str:
        """The registry's approval policy (never, capabilities, always): config.json."""
        return self.config.approval

    def writable_problem(self, name: str | None = None) -> str | None:
        """Why a write to this registry (or to tool `name`) would fail, or None. Cheap: asked
        before anything expensive (a paid model call) so a read-only registry fails first."""
        targets = [self.root]
        if name is not None and is_real_dir(self.root / name):
            targets.append(self.root / name)
        if not self.root.exists():
            parent = self.root.parent
            while not parent.exists() and parent != parent.parent:
                parent = parent.parent
            targets = [parent]
        for target in targets:
            if not os.access(target, os.W_OK | os.X_OK):
                return f"the registry {self.root} is read-only ({target} is not writable)"
        return None

    def _build(self, name: str, *, use_cache: bool, notice: Notice | None = None,
               manifest: Manifest | None = None) -> ToolState:
        """Tool `name`'s state from disk; an eager registry checks every version of it."""
        state = self._builder.build(name, use_cache=use_cache,
                                    notice=notice if notice is not None else self._notice(name),
                                    manifest=manifest, before=self._tools.get(name))
        if not self.lazy:
            for _ in state.records.values():
                pass
        return state

    def _load_all(self, *, use_cache: bool) -> None:
        """Scan the root; build every tool's state (eager) or those already built (lazy)."""
        names, stray = self._builder.scan()
        opening = not self._opened
        notice = Notice.OPENING if opening else Notice.CHANGE
        wanted = names if not self.lazy else [n for n in names if n in self._tools]
        # An eager open admits every tool's chain head under one lock and one write.
        batch = (self._trust.batch() if self._trust is not None and opening and not self.lazy
                 else contextlib.nullcontext())
        with batch:
            tools = {name: self._build(name, use_cache=use_cache, notice=notice)
                     for name in wanted}
        with self._state_lock:
            previous = self._tools
            self._names = set(names)
            self._tools = tools
            self._stray = tuple(stray)
        self._opened = True
        for name, state in tools.items():
            # Opening: each problem at info (the audit trail), and one warning line for all
            # of them, not one per tool per command (every command opens the registry;
            # review and show report the details).
            log_transitions(previous.get(name), state, notice)
        if opening and not self.lazy:
            problems = open_problems(tools, self._stray)
            if problems:
                get_logger("registry").warning(
                    "registry.problems", registry=str(self.root), count=len(problems),
                    problems=problems[:5], hint="dyntools review shows every detail",
                )

    def _notice(self, name: str) -> Notice:
        """A change, unless the tool was never read (lazy): then what is found is its first use."""
        return Notice.FIRST_USE if name in self._names and name not in self._tools else (
            Notice.CHANGE)

    def _state(self, name: str) -> ToolState | None:
        """Tool `name`'s state, read from disk on its first use (lazy), or None."""
        state = self._tools.get(name)
        if state is not None or name not in self._names:
            return state
        built = self._build(name, use_cache=True, notice=Notice.FIRST_USE)
        with self._state_lock:
            state = self._tools.setdefault(name, built)
        if state is built:
            log_transitions(None, built, Notice.FIRST_USE)
        return state

    def _install(self, state: ToolState) -> None:
        with self._state_lock:
            notice = self._notice(state.name)
            before = self._tools.get(state.name)
            self._tools[state.name] = state
            self._names.add(state.name)
        log_transitions(before, state, notice)
        for listener in list(self._listeners):
            listener(state.name)

    def refresh(self, name: str | None = None) -> None:
        """Re-read from disk (after another process wrote, or a watch event)."""
        if name is None:
            before = set(self.names())
            self._load_all(use_cache=True)
            for changed in set(self.names()) | before:
                for listener in list(self._listeners):
                    listener(changed)
            return
        require_valid_name(name)
        if not (self.root / name).exists():
            with self._state_lock:
                known = name in self._names
                self._names.discard(name)
                gone = self._tools.pop(name, None)
            if gone is not None or known:
                if gone is not None:
                    get_logger("registry").error("registry.tool_deleted", tool=name)
                for listener in list(self._listeners):
                    listener(name)
            return
        if self.lazy and name not in self._tools:
            # Never read yet: it is read (and checked) when it is first asked for.
            with self._state_lock:
                self._names.add(name)
            for listener in list(self._listeners):
                listener(name)
            return
        self._install(self._build(name, use_cache=True))

    @contextlib.contextmanager
    def writers_excluded(self) -> Iterator[None]:
        """Hold the writer lock (across processes): a reader that must never see a version
        file whose manifest entry is still being written, such as the live watch."""
        with self._lock.held():
            yield

    def forget_cached_check(self, name: str, version: int) -> None:
        """Force the next refresh to re-read and re-gate this version file in full."""
        self._builder.forget(name, version)

    def subscribe(self, listener: Callable[[str], None]) -> None:
        """Call `listener(tool_name)` after a tool's state changes (from the changing thread)."""
        self._listeners.append(listener)

    def names(self) -> list[str]:
        with self._state_lock:
            return sorted(self._names)

    def tools(self) -> list[ToolState]:
        states = (self._state(n) for n in self.names())
        return [state for state in states if state is not None]

    def tool(self, name: str) -> ToolState:
        require_valid_name(name)
        state = self._state(name)
        if state is None:
            raise self._unknown(name)
        return state

    def current(self, name: str) -> VersionRecord | None:
        """The version that takes new calls, or None (unknown tool, nothing usable, or with
        trusted keys a decision chain that does not vouch for it: `refusal` says why)."""
        require_valid_name(name)
        state = self._state(name)
        return state.current_record if state is not None else None

    def served(self, name: str) -> VersionRecord:
        """The version that takes new calls; else UnknownTool when there is no such tool,
        the decision chain's refusal when that is the reason (with trusted keys), or
        VersionUnusable saying why none of its versions may be served."""
        record = self.current(name)
        if record is not None:
            return record
        if name not in self.names():
            raise self._unknown(name)
        refusal = self.refusal(name)  # with trusted keys: its decision chain
        if refusal is not None:
            raise refusal
        state = self.tool(name)
        pointed = (state.records.get(state.recorded_current)
                   if state.recorded_current is not None else None)
        why = (f": v{pointed.version} is {pointed.status} ({pointed.reason_code}: "
               f"{pointed.reason})" if pointed is not None and not pointed.usable
               else f": {state.error}" if state.error else "")
        raise VersionUnusable(f"tool {name!r} has no usable version (quarantined, rejected, "
                              f"or none is current){why}", tool=name)

    def _unknown(self, name: str) -> UnknownTool:
        return UnknownTool(f"unknown tool {name!r} in registry {self.root}", tool=name)

    def refusal(self, name: str) -> DyntoolsError | None:
        """Why nothing of `name` is served, when its decision chain is the reason (with
        trusted keys): a NoChain, ChainMismatch or TrustStateError to raise; else None."""
        require_valid_name(name)
        state = self._state(name)
        verdict = state.chain if state is not None else None
        if verdict is None or verdict.code is None:
            return None
        from dyntools.registry.chain import CHAIN_MISMATCH, NO_CHAIN

        message = f"tool {name!r} is not served: {verdict.problem}"
        pointed = (state.records.get(state.recorded_current)
                   if state is not None and state.recorded_current is not None else None)
        if pointed is not None and not pointed.usable:
            message += (f"; and v{pointed.version} is {pointed.status}: "
                        f"{pointed.reason_code or ''} ({pointed.reason})")
        if verdict.hint:
            message += f" ({verdict.hint})"
        details = {"tool": name, "disagreements": list(verdict.disagreements),
                   "hint": verdict.hint}
        if verdict.code == NO_CHAIN:
            return NoChain(message, **details)
        if verdict.code == CHAIN_MISMATCH:
            return ChainMismatch(message, **details)
        return TrustStateError(message, **details)

    def versions(self, name: str) -> list[VersionRecord]:
        require_valid_name(name)
        state = self._state(name)
        return [state.records[v] for v in sorted(state.records)] if state else []

    def get(self, name: str, version: int) -> VersionRecord:
        state = self.tool(name)
        record = state.records.get(version)
        if record is None:
            known = ", ".join(str(v) for v in sorted(state.records)) or "none"
            raise UnknownVersion(
                f"tool {name!r} has no version {version} (versions: {known})",
                tool=name, version=version,
            )
        return record

    def quarantined(self) -> list[VersionRecord]:
        return [
            record
            for state in self.tools()
            for _, record in sorted(state.records.items())
            if record.status == QUARANTINED
        ]

    def unrecorded(self) -> list[Unrecorded]:
        return [*self._stray, *(u for state in self.tools() for u in state.unrecorded)]

    def broken_tools(self) -> list[ToolState]:
        return [state for state in self.tools() if state.error]

    def path_of(self, name: str, version: int) -> Path:
        require_valid_name(name)
        return self.root / name / version_file_name(version)

    def _version_limit(self, record: VersionRecord) -> int:
        """How much of a version file to read: what the manifest records, never more than
        the gate's source limit (the manifest's own `size` is no bound; a longer file fails
        the hash check)."""
        return min(record.size, self.policy.limits.max_bytes)

    def verified_source(self, name: str, version: int, *, sha256: str | None = None) -> bytes:
        """The bytes of a usable version, hash-checked now; quarantines it on a mismatch.
        `sha256`: the hash of the record the caller looked up; bytes the manifest has since
        given that version number (rewritten behind this process) are refused, so that what
        a caller checks and runs under that record are its bytes."""
        record = self.get(name, version)
        if sha256 is not None and record.sha256 != sha256:
            raise VersionUnusable(f"{name} v{version} was rewritten in the manifest since it was "
                                  f"looked up (sha256 {sha256[:12]} is now "
                                  f"{record.sha256[:12]})", tool=name, version=version)
        if not record.usable:
            raise VersionUnusable(
                f"{name} v{version} is {record.status}: {record.reason}", tool=name,
                version=version, reason_code=record.reason_code,
            )
        try:
            data = read_regular(record.path, limit=self._version_limit(record))
        except OSError as exc:
            self.refresh(name)
            raise VersionUnusable(f"{name} v{version} cannot be read: {exc}", tool=name,
                                  version=version) from exc
        if sha256_hex(data) != record.sha256:
            self.forget_cached_check(name, version)
            self.refresh(name)
            raise VersionUnusable(f"{name} v{version} was changed on disk and is quarantined",
                                  tool=name, version=version, reason_code=checks.HASH_MISMATCH)
        return data

    # ------------------------------------------------------------------------------ writing

    @contextlib.contextmanager
    def _writing(self, name: str, *,
                 alias_ok: bool = False) -> Iterator[tuple[Path, Manifest, bool]]:
        """Hold the writer lock; yield the tool folder, its manifest as on disk now, and
        whether the in-memory state was built from exactly that manifest. A name that is an
        alias takes no writer but the alias's own (`alias_ok`): it has no versions."""
        folder = self.root / name
        try:
            with self._lock.held():
                if folder.exists() and not is_real_dir(folder):
                    raise RegistryError(f"{folder} is not a real folder; refusing to write",
                                        tool=name)
                try:
                    manifest, data = self._builder.read_manifest(name)
                except ManifestError as exc:
                    raise RegistryError(
                        f"the manifest of {name!r} is invalid ({exc}); refusing to write over "
                        "it. Inspect it with `dyntools review`.", tool=name,
                    ) from exc
                if manifest is not None and manifest.alias is not None and not alias_ok:
                    raise UsageError(
                        f"{name} is an alias of {manifest.alias}, with no versions of its "
                        f"own: dyntools unalias {name} first (or work on {manifest.alias})",
                        tool=name, alias_of=manifest.alias)
                remove_stale_temps(folder)
                fresh = (
                    data is not None
                    and name in self._tools
                    and self._builder.built_from(name) == data
                )
                yield folder, manifest if manifest is not None else Manifest(name=name), fresh
        except WriterLockTimeout as exc:
            raise PersistError(f"timed out waiting for the registry lock {exc.lock_file}",
                               tool=name) from exc
        except OSError as exc:
            raise PersistError(f"cannot write tool {name!r}: {exc}", tool=name) from exc

    def _commit(self, folder: Path, manifest: Manifest) -> None:
        data = dump_manifest(manifest)
        write_replace(folder / MANIFEST_NAME, data)
        self._builder.remember(manifest, data)

    def _gate(self, name: str, source: bytes, report: GateReport | None) -> GateReport:
        if (
            report is None
            or report.sha256 != sha256_hex(source)
            or report.policy_digest != self.policy.digest
        ):
            report = check_source(source, self.policy, path=f"{name}/{name}.py")
        if not report.accepted:
            raise GateRejected(report)
        declared = report.declared_name  # what the gate read: the file is not parsed again
        if declared != name:
            raise UsageError(
                f"the source declares NAME = {declared!r}, not the tool name {name!r}",
                tool=name, declared=declared,
            )
        return report

    def add_version(
        self,
        name: str,
        source: bytes | str,
        provenance: Mapping[str, Any],
        *,
        activate: bool = True,
        status: str = APPROVED,
        reason: str | None = None,
        report: GateReport | None = None,
        decision: Mapping[str, Any] | None = None,
        signer: signing.Signer | None = None,
    ) -> VersionRecord:
        """Gate, persist and record a new version; move the pointer to it if `activate`.

        `status="rejected"` (with a `reason`) records a version that passed the gate but
        failed a later station; `status="pending"` one that passed everything but waits for
        a reviewer (`approve_pending`); neither becomes current. `report` is a gate report the
        caller already has for these exact bytes under this policy (else the gate runs here).
        `decision` ({"action", "by", "reason"}) is recorded on the entry with the time;
        `signer` signs an approved version's record and, for an approved version (or a
        decision given with it), appends the decision to the tool's chain (chain.py). With
        trusted keys, an approved version is a decision that needs a trusted `signer`
        (SigningKeyRequired).
        Raises UsageError, GateRejected, PersistError; nothing is written unless the gate
        accepts and the name checks pass.
        """
        require_valid_name(name)
        from dyntools.registry import chainwrite  # a writer's: a call never loads it

        if status not in (APPROVED, REJECTED, PENDING):
            raise UsageError(f"status must be {APPROVED!r}, {REJECTED!r} or {PENDING!r}, "
                             f"got {status!r}")
        if status != APPROVED and not reason:
            raise UsageError(f"a {status} version needs a reason")
        if status != APPROVED:
            activate = False
        # A version approved (by ensure or a reviewer), or a reviewer's signed rejection, is a
        # decision; a version held pending or rejected by a failed station is not.
        deciding = status == APPROVED or (decision is not None and signer is not None)
        action = str((decision or {}).get("action") or ("approve" if status == APPROVED
                                                          else "reject"))
        if status == APPROVED:
            chainwrite.require_key(self.trusted_keys, signer, f"approving a version of {name}",
                                   name)
        data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
        provenance = _normal_provenance(provenance)
        gate_report = self._gate(name, data, report)
        with self._writing(name) as (folder, on_disk_manifest, fresh):
            manifest = on_disk_manifest
            head = None
            if deciding:
                head = chainwrite.decision_base(name, manifest, action, None,
                                                self.trusted_keys, self._trust, root=self.root)
                manifest = chainwrite.chain_pointer(name, manifest, head)
            version = max(manifest.next_version, self._builder.max_version_on_disk(name) + 1,
                          max(head.statuses, default=0) + 1 if head is not None else 0)
            if not version_in_range(version):
                # A manifest with it would not parse, and the whole tool would be untrusted.
                raise PersistError(f"tool {name!r} has used every version number up to "
                                   f"{MAX_VERSION}", tool=name, version=version)
            entry = self._entry(version, data, gate_report, provenance, status, reason)
            entry = self._decided(name, entry, decision, signer)
            manifest = manifest.with_version(entry)
            if activate:
                manifest = manifest.with_pointer(version, "activate")
            if deciding:
                manifest = chainwrite.appended(name, manifest, action, (version,), signer, head,
                                               stamp=entry.decisions[-1] if entry.decisions
                                               else {}, root=self.root)
            manifest_path = folder / MANIFEST_NAME
            manifest_bytes = dump_manifest(manifest)
            path = folder / version_file_name(version)
            self._publish_version(folder, path, data, manifest_path, manifest_bytes)
            written = self._builder.trust_written(name, entry)
            previous = self._tools.get(name)
            # Only the new version changed: extend the state instead of rebuilding it.
            state = (self._builder.extended(previous, manifest, entry, written)
                     if fresh and previous is not None else None)
            if state is None:
                state = self._build(name, use_cache=True, manifest=manifest)
            self._builder.remember(manifest, manifest_bytes)
        get_logger("registry").info(
            "registry.version_added", tool=name, version=version, status=status,
            sha256=entry.sha256, current=state.current, generator=provenance.get("generator"),
            **_decision_fields(entry, decision),
        )
        self._install(state)
        return state.records[version]

    def _publish_version(self, folder: Path, path: Path, data: bytes, manifest_path: Path,
                         manifest_bytes: bytes) -> None:
        with interrupts.critical():
            # Ctrl-C waits until the version is recorded (or was never written): an
            # interrupted ensure leaves no orphan file for review to report.
            new_folder = not folder.exists()
            if new_folder:
                folder.mkdir()
            linked = published = False
            try:
                link_new(path, data)
                linked = True
                temp = write_temp(manifest_path, manifest_bytes, MANIFEST_MODE, sync=False)
                # The version file, its folder entry (and the folder's own, if new) and the
                # manifest's temp file become durable together; only then does the rename
                # move the pointer.
                sync_all([path, temp, folder, *([self.root] if new_folder else [])])
                publish(temp, manifest_path)
                published = True
            finally:
                if linked and not published:
                    with contextlib.suppress(OSError):
                        os.unlink(path)

    def _decided(self, name: str, entry: VersionEntry, decision: Mapping[str, Any] | None,
                 signer: signing.Signer | None) -> VersionEntry:
        """`entry` with `decision` appended (stamped now) and, with a signer, marked signed
        (its chain record is signed by it); an approved version's record is signed too, by
        the decision's approver."""
        if decision is None and signer is None:
            return entry
        stamped = {"action": entry.status, "by": default_approver(), "reason": None,
                   **(decision or {}), "time": utc_now()}
        changes: dict[str, Any] = {}
        if signer is not None:
            if entry.status == APPROVED:
                changes["signature"] = signer.sign(name, entry.version, entry.sha256,
                                                   entry.status, str(stamped["by"]),
                                                   str(stamped["time"]), entry.policy_digest)
            stamped["signed_by_key"] = signer.public_key
        return entry.with_decision(stamped, **changes)

    def _move_pointer(self, name: str, version: int, action: str, *,
                      decision: Mapping[str, Any] | None = None,
                      signer: signing.Signer | None = None) -> VersionRecord:
        require_valid_name(name)
        from dyntools.registry import chainwrite  # a writer's: a call never loads it

        if isinstance(version, bool) or not isinstance(version, int):
            raise UsageError(f"a version is a whole number, got {version!r}")
        chainwrite.require_key(self.trusted_keys, signer, f"{action} of {name}", name, version)
        with self._writing(name) as (folder, on_disk_manifest, _):
            manifest = on_disk_manifest
            entry = manifest.versions.get(version)
            if entry is None:
                if name not in self._tools and not manifest.versions:
                    raise UnknownTool(f"unknown tool {name!r} in registry {self.root}", tool=name)
                raise UnknownVersion(f"tool {name!r} has no version {version}", tool=name,
                                     version=version)
            # With trusted keys the pointer is the chain's (a pointer moved by hand is undone).
            head = chainwrite.decision_base(name, manifest, action, version,
                                            self.trusted_keys, self._trust, root=self.root)
            manifest = chainwrite.chain_pointer(name, manifest, head)
            if action == "rollback" and manifest.current is not None and (
                version >= manifest.current
            ):
                raise UsageError(
                    f"rollback moves the pointer back: v{version} is not older than the "
                    f"current v{manifest.current} (use activate to move it forward)",
                    tool=name, version=version,
                )
            if entry.status == PENDING:
                raise VersionUnusable(
                    f"cannot {action} {name} v{version}: it is pending approval "
                    f"(dyntools approve {name} {version})", tool=name, version=version,
                    reason_code=PENDING,
                )
            if signer is not None or decision is not None:
                entry = self._decided(name, entry, {"action": action, **(decision or {})},
                                      signer)
                manifest = manifest.with_version(entry)
            self.forget_cached_check(name, version)
            record = self._builder.checked_record(name, entry, use_cache=False)
            if not record.usable:
                raise VersionUnusable(
                    f"cannot {action} {name} v{version}: it is {record.status} "
                    f"({record.reason})", tool=name, version=version,
                    reason_code=record.reason_code,
                )
            manifest = manifest.with_pointer(version, action, **_who(entry, decision))
            manifest = chainwrite.appended(name, manifest, action, (version,), signer, head,
                                           stamp=entry.decisions[-1] if entry.decisions else {},
                                           root=self.root)
            with interrupts.critical():
                self._commit(folder, manifest)
            state = self._build(name, use_cache=True, manifest=manifest)
        get_logger("registry").info("registry.pointer_moved", tool=name, action=action,
                                    to=version, current=state.current,
                                    **_decision_fields(entry, decision))
        self._install(state)
        return state.records[version]

    def _entry(
        self,
        version: int,
        data: bytes,
        report: GateReport,
        provenance: Mapping[str, Any],
        status: str,
        reason: str | None,
    ) -> VersionEntry:
        """The manifest entry for bytes the gate just accepted under this policy."""
        return VersionEntry(
            version=version,
            sha256=report.sha256,
            size=len(data),
            status=status,
            reason=reason,
            created=utc_now(),
            policy_digest=self.policy.digest,
            provenance=MappingProxyType(dict(provenance)),
            gate=MappingProxyType(_verdict(report)),
        )

    def activate(self, name: str, version: int, *, decision: Mapping[str, Any] | None = None,
                 signer: signing.Signer | None = None) -> VersionRecord:
        """Point new calls at an approved `version`, forward or back (re-checked now);
        `decision` records who and why, `signer` signs the version record."""
        return self._move_pointer(name, version, "activate", decision=decision, signer=signer)

    def rollback(self, name: str, version: int, *,
                 decision: Mapping[str, Any] | None = None,
                 signer: signing.Signer | None = None) -> VersionRecord:
        """Move the pointer back to an earlier good version; history is kept. `signer` signs
        the decision (its chain record, and the version record)."""
        return self._move_pointer(name, version, "rollback", decision=decision, signer=signer)

    def read_unrecorded(self, name: str, version: int) -> bytes:
        """The bytes of a dropped-in `vN.py` no manifest records (UnknownVersion if none)."""
        require_valid_name(name)
        path = self.path_of(name, version)
        try:
            data = read_regular(path, limit=self.policy.limits.max_bytes)
        except FileNotFoundError as exc:
            raise UnknownVersion(f"there is no file {path} to approve", tool=name,
                                 version=version) from exc
        except OSError as exc:
            raise UsageError(f"{path} cannot be read: {exc.strerror or exc}", tool=name,
                             version=version) from exc
        return data

    def read_recorded(self, name: str, version: int) -> bytes:
        """The bytes of a recorded version of any status, hash-checked now."""
        record = self.get(name, version)
        try:
            data = read_regular(record.path, limit=self._version_limit(record))
        except OSError as exc:
            raise VersionUnusable(f"{name} v{version} cannot be read: {exc}", tool=name,
                                  version=version) from exc
        if sha256_hex(data) != record.sha256:
            raise VersionUnusable(f"{name} v{version} was changed on disk", tool=name,
                                  version=version, reason_code=checks.HASH_MISMATCH)
        return data

    def approve(
        self,
        name: str,
        version: int,
        provenance: Mapping[str, Any] | None = None,
        *,
        activate: bool = True,
        status: str = APPROVED,
        reason: str | None = None,
        expected_sha256: str | None = None,
        decision: Mapping[str, Any] | None = None,
        signer: signing.Signer | None = None,
    ) -> VersionRecord:
        """Record a version file that was dropped in by hand (`<name>/v<N>.py`, unrecorded):
        gate it, make it read-only, and record its hash, as approved (the pointer moves to
        it if `activate`) or, with `status="rejected"` and a reason, as rejected. With
        `expected_sha256` (the bytes a caller verified), a file that changed since is refused.
        A recorded version is never re-approved this way: an edited file stays quarantined;
        approve its content as a new version with `add_version` instead."""
        require_valid_name(name)
        from dyntools.registry import chainwrite  # a writer's: a call never loads it

        if not version_in_range(version):
            # Recording it would write a manifest that no longer parses: the whole tool,
            # every good version included, would become untrusted.
            raise UsageError(f"a version number is 1..{MAX_VERSION}, got {version!r}",
                             tool=name, version=version)
        if status not in (APPROVED, REJECTED) or (status == REJECTED and not reason):
            raise UsageError("approve records an approved version, or a rejected one with a "
                             "reason")
        provenance = _normal_provenance({"generator": "manual", **(provenance or {})})
        action = "approve" if status == APPROVED else "reject"
        chainwrite.require_key(self.trusted_keys, signer, f"the {action} of {name} v{version}",
                               name, version)
        with self._writing(name) as (folder, on_disk_manifest, _):
            manifest = on_disk_manifest
            if version in manifest.versions:
                raise UsageError(
                    f"{name} v{version} is already recorded; to trust an edited copy, add it "
                    "as a new version (dyntools approve NAME --file PATH)",
                    tool=name, version=version,
                )
            head = chainwrite.decision_base(name, manifest, action, version,
                                            self.trusted_keys, self._trust, root=self.root)
            manifest = chainwrite.chain_pointer(name, manifest, head)
            path = folder / version_file_name(version)
            try:
                # One byte over the gate's limit is enough for the gate to refuse it.
                data = read_regular(path, limit=self.policy.limits.max_bytes)
            except FileNotFoundError as exc:
                raise UnknownVersion(f"there is no file {path} to approve", tool=name,
                                     version=version) from exc
            if os.lstat(path).st_nlink > 1:
                raise UsageError(f"{path} has other hard links; a version file must have one "
                                 "name (copy it instead)", tool=name, version=version)
            if expected_sha256 is not None and sha256_hex(data) != expected_sha256:
                raise UsageError(f"{path} changed while it was being verified; approve it "
                                 "again", tool=name, version=version)
            gate_report = self._gate(name, data, None)
            os.chmod(path, 0o444, follow_symlinks=False)
            # A hand-written file and its folder entry may not be durable yet.
            sync_all([path, folder])
            entry = self._entry(version, data, gate_report, provenance, status, reason)
            entry = self._decided(name, entry, {"action": action, **(decision or {})}, signer)
            manifest = manifest.with_version(entry)
            if activate and status == APPROVED:
                manifest = manifest.with_pointer(version, "approve", **_who(entry, decision))
            manifest = chainwrite.appended(name, manifest, action, (version,), signer, head,
                                           stamp=entry.decisions[-1], root=self.root)
            with interrupts.critical():
                self._commit(folder, manifest)
            self.forget_cached_check(name, version)
            state = self._build(name, use_cache=True, manifest=manifest)
        get_logger("registry").info(
            "registry.approved" if status == APPROVED else "registry.rejected", tool=name,
            version=version, sha256=entry.sha256, current=state.current,
            **_decision_fields(entry, decision))
        self._install(state)
        return state.records[version]

    def decide(
        self,
        name: str,
        version: int,
        action: str,
        *,
        reason: str | None = None,
        by: str | None = None,
        activate: bool = True,
        signer: signing.Signer | None = None,
        contract: Mapping[str, Any] | None = None,
    ) -> VersionRecord:
        """A reviewer's decision on a recorded version, with who, when and why:

        approve   a pending version becomes approved (and current if `activate`);
        reject    a pending version becomes rejected (never served);
        retire    any version (quarantined or not) stays on disk and in history, is never
                  served again and no longer needs attention in `review`. A dropped-in file
                  no manifest records is recorded as retired. The pointer, if on it, moves to
                  the newest usable version below it (or none).

        Verification is the caller's job (the pipeline's `approve` runs it first).
        `contract` ({"contract_added": [digests], "contract_change": bool}) makes an approval
        that changes the tool's counterexamples a `contract` decision (chain.py)."""
        require_valid_name(name)
        from dyntools.registry import chainwrite  # a writer's: a call never loads it

        if action not in ("approve", "reject", "retire"):
            raise UsageError(f"unknown decision {action!r}")
        if action in ("reject", "retire") and not reason:
            raise UsageError(f"{action} needs a reason (--reason TEXT)", tool=name,
                             version=version)
        if not version_in_range(version):
            raise UsageError(f"a version number is 1..{MAX_VERSION}, got {version!r}",
                             tool=name, version=version)
        decision = {"action": action, "by": by or default_approver(), "reason": reason}
        if contract is not None and action == "approve":
            from dyntools.registry.chain import CONTRACT

            decision.update(contract, action=CONTRACT)
        chainwrite.require_key(self.trusted_keys, signer, f"the {action} of {name} v{version}",
                               name, version)
        with self._writing(name) as (folder, on_disk_manifest, _):
            manifest = on_disk_manifest
            head = chainwrite.decision_base(name, manifest, action, version,
                                            self.trusted_keys, self._trust, root=self.root)
            manifest = chainwrite.chain_pointer(name, manifest, head)
            entry = manifest.versions.get(version)
            if entry is None:
                entry = self._unrecorded_entry(name, folder, version, action)
            elif action in ("approve", "reject") and entry.status != PENDING:
                hint = (f"; use dyntools activate {name} {version} to make it current"
                        if entry.status == APPROVED else "")
                raise UsageError(f"{name} v{version} is {entry.status}, not pending: there is "
                                 f"nothing to {action}{hint}", tool=name, version=version)
            elif action == "retire" and entry.status == RETIRED:
                raise UsageError(f"{name} v{version} is already retired", tool=name,
                                 version=version)
            if action == "approve":
                entry = self._decided(name, entry._replace(status=APPROVED, reason=None),
                                      decision, signer)
            elif action == "reject":
                entry = self._decided(name, entry._replace(status=REJECTED, reason=reason),
                                      decision, signer)
            else:
                entry = self._decided(name, entry._replace(status=RETIRED, reason=reason,
                                                           signature=None), decision, signer)
            manifest = manifest.with_version(entry)
            if action == "approve" and activate:
                self.forget_cached_check(name, version)
                record = self._builder.checked_record(name, entry, use_cache=False)
                if not record.usable:
                    raise VersionUnusable(
                        f"cannot approve {name} v{version}: it is {record.status} "
                        f"({record.reason})", tool=name, version=version,
                        reason_code=record.reason_code)
                manifest = manifest.with_pointer(version, "approve", **_who(entry, decision))
            elif action == "retire" and manifest.current == version:
                below = self._newest_usable_below(name, manifest, version, head)
                manifest = manifest.with_pointer(below, "retire", **_who(entry, decision))
            manifest = chainwrite.appended(name, manifest, str(decision["action"]),
                                           (version,), signer, head,
                                           stamp=entry.decisions[-1], root=self.root)
            with interrupts.critical():
                self._commit(folder, manifest)
            self.forget_cached_check(name, version)
            state = self._build(name, use_cache=True, manifest=manifest)
        get_logger("registry").info(f"registry.{action}", tool=name, version=version,
                                    current=state.current, **_decision_fields(entry, decision))
        self._install(state)
        return state.records[version]

    def _newest_usable_below(self, name: str, manifest: Manifest, version: int,
                             head: ChainRecord | None = None) -> int | None:
        """The newest version below `version` that is usable now and (with a chain head)
        that the chain approves."""
        for candidate in sorted((v for v in manifest.versions if v < version), reverse=True):
            entry = manifest.versions[candidate]
            approved_by_chain = head is None or head.statuses.get(candidate) == APPROVED
            if entry.status == APPROVED and approved_by_chain and (
                self._builder.checked_record(name, entry, use_cache=True).usable
            ):
                return candidate
        return None

    def sign_state(self, name: str, signer: signing.Signer | None, *, by: str | None = None,
                   reason: str | None = None, accept_manifest: bool = False) -> SignedState:
        """Sign the tool's pointer and statuses as they are: the first record of its decision
        chain (a registry made before chains, or decisions made without a key). On a chain
        that already says the same, nothing is written; on one that disagrees or does not
        verify, only with `accept_manifest` (chainwrite.sign_state). It never signs a
        version's own record: that says its content was read, one decision per version
        (`unsigned` lists those still without one). Always needs a key (SigningKeyRequired),
        and with trusted keys one of them."""
        require_valid_name(name)
        from dyntools.registry import chainwrite  # a writer's: a call never loads it

        if signer is None:
            raise SigningKeyRequired(f"sign-state signs {name}'s state: give --sign-key FILE "
                                     "(or set DYNTOOLS_SIGNING_KEY)", tool=name)
        chainwrite.require_key(self.trusted_keys, signer, f"signing the state of {name}", name)
        stamp = {"by": by or default_approver(), "reason": reason, "time": utc_now()}
        with self._writing(name) as (folder, manifest, _):
            if not manifest.versions and not manifest.chain:
                raise UnknownTool(f"unknown tool {name!r} in registry {self.root}", tool=name)
            signed, overridden = chainwrite.sign_state(
                name, manifest, signer, self.trusted_keys, self._trust, stamp=stamp,
                accept_manifest=accept_manifest, root=self.root)
            if signed is not None:
                with interrupts.critical():
                    self._commit(folder, signed)
            state = self._build(name, use_cache=True, manifest=signed or manifest)
            unsigned = tuple(v for v, entry in sorted(manifest.versions.items())
                             if entry.status == APPROVED and entry.signature is None)
        from dyntools.registry.chain import verify_chain

        head = verify_chain((signed or manifest).chain, name, None).head
        if signed is not None:
            get_logger("registry").info("registry.sign_state", tool=name, by=stamp["by"],
                                        seq=head.seq if head else None,
                                        current=signed.current, overridden=list(overridden))
        self._install(state)
        return SignedState(name, signed is not None, head, overridden, unsigned)

    # ---------------------------------------------------------------------------- aliases

    def alias_of(self, name: str) -> str | None:
        """The tool `name` serves when it is an alias, else None; with trusted keys only an
        alias its decision chain vouches for (a refused one serves nothing: `refusal`)."""
        require_valid_name(name)
        state = self._state(name)
        if state is None or state.alias is None:
            return None
        if state.chain is not None and state.chain.code is not None:
            return None
        return state.alias

    def aliases(self) -> dict[str, str]:
        """Every name recorded as an alias, and the tool it names (served or not: see
        `alias_of`). An alias has no versions of its own: it is never a tool of its own, in
        a listing, a search's duplicates or a health report."""
        return {state.name: state.alias for state in self.tools() if state.alias is not None}

    def set_alias(self, name: str, target: str, *, by: str | None = None,
                  reason: str | None = None, signer: signing.Signer | None = None) -> ToolState:
        """Make `name` serve `target`'s current version (`ensure --reuse-similar`, `dyntools
        alias`). `name` must have no versions of its own; `target` must be served now (an
        alias of an alias names the last one). With `signer` (with trusted keys: one of
        them, else SigningKeyRequired) it is a signed `alias` record of `name`'s chain."""
        require_valid_name(name)
        require_valid_name(target)
        from dyntools.registry import chainwrite  # a writer's: a call never loads it

        target = self.alias_of(target) or target
        if target == name:
            raise UsageError(f"{name} cannot be an alias of itself", tool=name)
        if self.current(target) is None:
            raise UsageError(f"{target} serves no version, so {name} cannot be an alias of it",
                             tool=name, target=target)
        chainwrite.require_key(self.trusted_keys, signer,
                               f"making {name} an alias of {target}", name)
        stamp = {"by": by or default_approver(), "reason": reason, "time": utc_now()}
        with self._writing(name, alias_ok=True) as (folder, on_disk, _):
            if on_disk.versions or self._builder.max_version_on_disk(name):
                raise UsageError(f"{name} has versions of its own: an alias only names a tool "
                                 "that has none", tool=name, target=target)
            if on_disk.alias == target and (signer is None or _chain_says_alias(on_disk, target)):
                return self._build(name, use_cache=True, manifest=on_disk)  # nothing to add
            manifest = self._aliased(name, on_disk, target, signer, stamp)
            with interrupts.critical():
                if not folder.exists():
                    folder.mkdir()
                    fsync_dir(self.root)
                self._commit(folder, manifest)
            state = self._build(name, use_cache=True, manifest=manifest)
        get_logger("registry").info("registry.alias", tool=name, target=target, by=stamp["by"],
                                    reason=reason, signed=signer is not None)
        self._install(state)
        return state

    def remove_alias(self, name: str, *, by: str | None = None, reason: str | None = None,
                     signer: signing.Signer | None = None) -> str:
        """`name` no longer serves another tool (`dyntools unalias`); returns the tool it
        served. Signed like `set_alias` (a record with no target); a name with no chain is
        removed from the registry, one with a chain keeps its manifest for that history."""
        require_valid_name(name)
        from dyntools.registry import chainwrite  # a writer's: a call never loads it

        chainwrite.require_key(self.trusted_keys, signer, f"removing the alias {name}", name)
        stamp = {"by": by or default_approver(), "reason": reason, "time": utc_now()}
        with self._writing(name, alias_ok=True) as (folder, on_disk, _):
            target = on_disk.alias
            if target is None:
                raise UsageError(f"{name} is not an alias", tool=name)
            manifest = self._aliased(name, on_disk, None, signer, stamp)
            with interrupts.critical():
                if manifest.chain:
                    self._commit(folder, manifest)
                    state: ToolState | None = self._build(name, use_cache=True,
                                                          manifest=manifest)
                else:
                    (folder / MANIFEST_NAME).unlink()
                    with contextlib.suppress(OSError):  # anything else left there stays
                        folder.rmdir()
                    fsync_dir(self.root)
                    state = None
        get_logger("registry").info("registry.unalias", tool=name, target=target,
                                    by=stamp["by"], reason=reason, signed=signer is not None)
        if state is not None:
            self._install(state)
        else:
            with self._state_lock:  # gone on purpose: not the deletion refresh() reports
                self._names.discard(name)
                self._tools.pop(name, None)
            for listener in list(self._listeners):
                listener(name)
        return target

    def _aliased(self, name: str, manifest: Manifest, target: str | None,
                 signer: signing.Signer | None, stamp: Mapping[str, Any]) -> Manifest:
        """`manifest` with `target` as its alias (None: none), in its history and, with a
        signer, as a signed `alias` record built on the chain (under the writer lock)."""
        from dyntools.registry import chainwrite
        from dyntools.registry.chain import ALIAS

        head = chainwrite.decision_base(name, manifest, ALIAS, None, self.trusted_keys,
                                        self._trust, root=self.root)
        event = {"time": stamp["time"], "action": ALIAS, "from": manifest.alias, "to": target,
                 "by": stamp["by"], "reason": stamp.get("reason")}
        changed = manifest._replace(alias=target, history=(*manifest.history, event))
        return chainwrite.appended(name, changed, ALIAS, (), signer, head, stamp=stamp,
                                   root=self.root, extra={"target": target})

    def _unrecorded_entry(self, name: str, folder: Path, version: int,
                          action: str) -> VersionEntry:
        """A dropped-in file, recorded so that a decision on it (retire, reject) sticks."""
        path = folder / version_file_name(version)
        try:
            data = read_regular(path, limit=self.policy.limits.max_bytes)
        except FileNotFoundError:
            raise UnknownVersion(f"tool {name!r} has no version {version}", tool=name,
                                 version=version) from None
        if action == "approve":
            raise UsageError(f"{name} v{version} is not recorded: approve it with verification "
                             f"(dyntools approve {name} {version})", tool=name, version=version)
        report = check_source(data, self.policy, path=f"{name}/{path.name}")
        if action == "reject" and not report.accepted:
            raise UsageError(f"{path} fails the gate; retire it instead of rejecting it",
                             tool=name, version=version)
        with contextlib.suppress(OSError):
            os.chmod(path, 0o444, follow_symlinks=False)
        sync_all([path, folder])
        return VersionEntry(
            version=version, sha256=sha256_hex(data), size=len(data), status=REJECTED,
            reason="recorded by a reviewer", created=utc_now(),
            policy_digest=self.policy.digest,
            provenance=MappingProxyType(_normal_provenance({"generator": "manual"})),
            gate=MappingProxyType(_verdict(report)),
        )

    def quarantine(self, name: str, version: int, reason: str) -> VersionRecord:
        """Record a reviewer's quarantine; a pointer on it falls back like any quarantine."""
        require_valid_name(name)
        if not reason:
            raise UsageError("a quarantine needs a reason")
        with self._writing(name) as (folder, on_disk_manifest, _):
            manifest = on_disk_manifest
            entry = manifest.versions.get(version)
            if entry is None:
                raise UnknownVersion(f"tool {name!r} has no version {version}", tool=name,
                                     version=version)
            manifest = manifest.with_version(entry._replace(status=QUARANTINED, reason=reason))
            with interrupts.critical():
                self._commit(folder, manifest)
            state = self._build(name, use_cache=True, manifest=manifest)
        self._install(state)
        return state.records[version]

    def watch(self) -> RegistryWatcher:
        """Start applying the open rules live (watchdog); returns a started RegistryWatcher."""
        from dyntools.registry.watch import RegistryWatcher

        watcher = RegistryWatcher(self)
        watcher.start()
        return watcher


def _chain_says_alias(manifest: Manifest, target: str) -> bool:
    """Does the head of `manifest`'s chain (linked and signed, by whatever key) already make
    the name an alias of `target`?"""
    from dyntools.registry.chain import verify_chain

    head = verify_chain(manifest.chain, manifest.name, None).head
    return head is not None and head.alias == target


def default_approver() -> str:
    """Who a decision is recorded as when no --by is given: the login name."""
    import getpass

    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"


def _who(entry: VersionEntry, decision: Mapping[str, Any] | None) -> dict[str, Any]:
    """The who/why of a pointer move, for the manifest's history."""
    if decision is None:
        return {}
    last = entry.decisions[-1] if entry.decisions else decision
    return {"by": last.get("by"), "reason": last.get("reason")}


def _decision_fields(entry: VersionEntry, decision: Mapping[str, Any] | None) -> dict[str, Any]:
    """Who, when and why for the audit log."""
    if decision is None or not entry.decisions:
        return {}
    last = entry.decisions[-1]
    return {"by": last.get("by"), "reason": last.get("reason"), "decided": last.get("time"),
            "signed": entry.signature is not None}


def _verdict(report: GateReport) -> dict[str, Any]:
    verdict = report.as_dict()
    verdict.pop("path", None)
    return verdict


def _normal_provenance(provenance: Mapping[str, Any]) -> dict[str, Any]:
    """Provenance as stored: generator, model, attempts, prompt_sha256, time (+ extras)."""
    if not isinstance(provenance, Mapping):
        raise UsageError("provenance must be a mapping")
    normal: dict[str, Any] = {
        "generator": None, "model": None, "attempts": None, "prompt_sha256": None,
        **provenance,
    }
    normal.setdefault("time", utc_now())
    if normal["time"] is None:
        normal["time"] = utc_now()
    try:
        # allow_nan=False: NaN and Infinity are not JSON; a manifest holding them is refused
        # by strict readers (jq, other languages), though Python's own parser accepts it.
        json.dumps(normal, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise UsageError(f"provenance must be JSON-serialisable: {exc}") from exc
    return normal
