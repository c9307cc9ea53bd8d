"""Freshness: the highest decision-chain head this consumer has accepted, per tool, kept outside
the registry.

A chain stored in the registry cannot see the whole older manifest restored from a backup or
from Git: that manifest's chain is valid, only shorter. So each consumer that verifies chains
(`call`, `serve-mcp`, the library, `review --trusted-keys`, and every writer) records the head
it accepted, and refuses a chain that does not extend it: one whose head is lower (the tail was
dropped, an older copy restored), that is missing (the chain was removed), or whose record at
the accepted position is another one (a fork).

    <folder>/<registry id>.json
      {"format": 1, "registry": "/srv/tools",
       "tools": {"slugify_text": {"seq": 3, "head": "<sha256>", "time": "..."}}}

`<folder>` is `DYNTOOLS_TRUST_STATE` if set, else `$XDG_STATE_HOME/dyntools/heads`, else
`~/.local/state/dyntools/heads`. The registry id is the first 32 hex digits of the SHA-256 of the
registry folder's real path (symlinks resolved): nothing inside the registry chooses it, so
whoever writes the registry cannot point a consumer at a fresh, empty record (an id stored in
the registry could be changed to do exactly that). Moving a registry starts a fresh record.

The file is a security record: written atomically (temp file, fsync, rename, fsync of the
folder) under a lock beside it, mode 0600; read without following a symlink, only when it is a
regular file owned by this user and writable by nobody else. One that cannot be read, parsed or
written refuses (`TrustStateError`, reason `trust_state`); it is never reset silently. A missing
file is a consumer that has accepted nothing yet: what remains open is documented in
docs/registry.md (a consumer with no state cannot tell a consistent older snapshot from today's).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from dyntools.base.toolname import tool_name_problem
from dyntools.errors import TrustStateError
from dyntools.gate.findings import sha256_hex
from dyntools.registry.chain import CHAIN_MISMATCH, TRUST_STATE, ChainRecord, ChainVerdict
from dyntools.registry.manifest import utc_now
from dyntools.registry.store import WriterLock, WriterLockTimeout, fsync_dir

TRUST_STATE_ENV = "DYNTOOLS_TRUST_STATE"
STATE_FORMAT = 1
MAX_STATE_BYTES = 16 << 20
_OPEN_READ = (os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
              | getattr(os, "O_NONBLOCK", 0))
_OPEN_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)


class AcceptedHead(NamedTuple):
    seq: int
    digest: str
    time: str


def state_folder() -> Path:
    """Where the records of accepted heads live (see the module docstring)."""
    explicit = os.environ.get(TRUST_STATE_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg and os.path.isabs(xdg):  # the XDG spec: a relative path is invalid, ignore it
        base = Path(xdg)
    else:
        try:
            base = Path.home() / ".local" / "state"
        except RuntimeError as exc:
            raise TrustStateError(
                f"no home folder to keep the accepted chain heads in ({exc}); set "
                f"{TRUST_STATE_ENV} to a folder") from None
    return base / "dyntools" / "heads"


def registry_id(root: str | os.PathLike[str]) -> str:
    """The first 32 hex digits of the SHA-256 of the registry folder's real path."""
    return sha256_hex(os.fsencode(os.path.realpath(root)))[:32]


def extension_problem(tool: str, stored: AcceptedHead | None,
                      records: Sequence[ChainRecord]) -> str | None:
    """Why a chain made of `records` does not extend the head accepted before (None if it
    does, or nothing was accepted)."""
    if stored is None:
        return None
    when = f"this consumer accepted #{stored.seq} of {tool}'s decision chain on {stored.time}"
    if not records:
        return (f"{tool} has no decision chain, but {when}: the chain was removed, or an older "
                "copy of the manifest was restored")
    if len(records) - 1 < stored.seq:
        return (f"the chain's head is #{len(records) - 1}, but {when}: an older copy of the "
                "manifest (a backup, the Git history) replaced a newer one")
    if records[stored.seq].digest != stored.digest:
        return (f"record #{stored.seq} is not the one {when}: the chain was rewritten "
                "(a fork)")
    return None


class TrustState:
    """One consumer's record of accepted heads for one registry (thread-safe)."""

    def __init__(self, root: Path, folder: str | os.PathLike[str] | None = None) -> None:
        self.root = root
        self._id: str | None = None
        self._folder = Path(folder) if folder is not None else None
        self._mutex = threading.RLock()
        self._cache: tuple[tuple[int, int, int, int], dict[str, AcceptedHead]] | None = None
        self._batch: dict[str, AcceptedHead] | None = None
        self._dirty = False

    @property
    def folder(self) -> Path:
        if self._folder is None:
            self._folder = state_folder()
        return self._folder

    @property
    def registry_id(self) -> str:
        if self._id is None:
            self._id = registry_id(self.root)
        return self._id

    @property
    def path(self) -> Path:
        return self.folder / f"{self.registry_id}.json"

    def _hint(self, tool: str) -> str:
        return (f"restore the registry's newest manifest of {tool}; if the older one is what "
                f"you want, remove {tool} from {self.path} (this consumer then accepts "
                "whatever the registry holds now)")

    # ------------------------------------------------------------------------- judging

    def admit(self, tool: str, verdict: ChainVerdict) -> ChainVerdict:
        """`verdict`, refused when its chain does not extend the head accepted before; a
        newer head is recorded as accepted. Never raises: a state that cannot be read or
        written refuses the tool (reason `trust_state`)."""
        try:
            with self._mutex:
                return self._admit(tool, verdict)
        except TrustStateError as exc:
            return verdict.refused(TRUST_STATE, exc.message,
                                   hint=f"fix or move {self._path_or_env()} (never reset "
                                        "silently: it is what catches an older manifest)")
        except Exception as exc:  # a check that breaks refuses: fail closed
            return verdict.refused(TRUST_STATE, f"the accepted chain heads could not be "
                                                f"checked ({type(exc).__name__}: {exc})"[:300])

    def _path_or_env(self) -> str:
        try:
            return str(self.path)
        except TrustStateError:
            return TRUST_STATE_ENV

    def _admit(self, tool: str, verdict: ChainVerdict) -> ChainVerdict:
        head = verdict.head
        if head is None and verdict.length:
            return verdict  # the chain does not verify: there is nothing to accept
        records = verdict.records if head is not None else ()
        stored = self._entries().get(tool)
        problem = extension_problem(tool, stored, records)
        if problem is not None:
            return verdict.refused(CHAIN_MISMATCH, problem, hint=self._hint(tool))
        if head is None or (stored is not None and stored.seq == head.seq):
            return verdict
        accepted = AcceptedHead(head.seq, head.digest, utc_now())
        if self._batch is not None:
            self._batch[tool] = accepted
            self._dirty = True
            return verdict
        with self._locked():
            entries = dict(self._read())
            problem = extension_problem(tool, entries.get(tool), records)
            if problem is not None:  # another process accepted a fork meanwhile
                return verdict.refused(CHAIN_MISMATCH, problem, hint=self._hint(tool))
            known = entries.get(tool)
            if known is None or known.seq < head.seq:
                entries[tool] = accepted
                self._write(entries)
        return verdict

    def accepted(self, tool: str) -> tuple[int, str] | None:
        """The (seq, hash) of the head accepted for `tool`, or None (also when the record
        cannot be read: `admit` then says so)."""
        try:
            with self._mutex:
                head = self._entries().get(tool)
        except TrustStateError:
            return None
        return (head.seq, head.digest) if head is not None else None

    def extension_problem(self, tool: str, records: Sequence[ChainRecord]) -> str | None:
        """For a writer about to commit a chain: why it would not extend the accepted head.
        Raises TrustStateError."""
        with self._mutex:
            return extension_problem(tool, self._entries().get(tool), records)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Admit many tools under one lock and one write (an eager open, `review`). A record
        that cannot be written at the end raises TrustStateError."""
        with self._mutex:
            if self._batch is not None:
                yield
                return
            stack = contextlib.ExitStack()
            try:
                stack.enter_context(self._locked())
                self._batch = dict(self._read())
            except TrustStateError:
                stack.close()  # each admit then reports it, tool by tool
                self._batch = None
            self._dirty = False
            try:
                yield
                if self._batch is not None and self._dirty:
                    self._write(self._batch)
            finally:
                self._batch = None
                self._dirty = False
                stack.close()

    # ---------------------------------------------------------------------- the file

    def _entries(self) -> Mapping[str, AcceptedHead]:
        return self._batch if self._batch is not None else self._read()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        folder = self.folder
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise TrustStateError(
                f"cannot create {folder} for the accepted chain heads: "
                f"{exc.strerror or exc}; set {TRUST_STATE_ENV} to a writable folder",
                path=str(folder)) from None
        lock = WriterLock(folder, name=f"{self.registry_id}.json.lock")
        try:
            with lock.held():
                yield
        except WriterLockTimeout as exc:
            raise TrustStateError(f"timed out waiting for {exc.lock_file}",
                                  path=str(folder)) from None
        except OSError as exc:
            raise TrustStateError(
                f"cannot lock the accepted chain heads in {folder}: {exc.strerror or exc}",
                path=str(folder)) from None

    def _read(self) -> dict[str, AcceptedHead]:
        path = self.path
        try:
            fd = os.open(path, _OPEN_READ)
        except FileNotFoundError:
            return {}  # nothing accepted yet
        except OSError as exc:
            raise self._unreadable(path, exc.strerror or str(exc)) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise self._unreadable(path, "not a regular file")
            if info.st_uid != os.geteuid() or info.st_mode & 0o022:
                raise self._unreadable(path, "owned by another user or writable by others, "
                                             "so it cannot vouch for what was accepted")
            key = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            if self._cache is not None and self._cache[0] == key:
                return self._cache[1]
            chunks = []
            left = MAX_STATE_BYTES + 1
            while left > 0:
                chunk = os.read(fd, min(1 << 20, left))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        except OSError as exc:
            raise self._unreadable(path, exc.strerror or str(exc)) from None
        finally:
            os.close(fd)
        data = b"".join(chunks)
        if len(data) > MAX_STATE_BYTES:
            raise self._unreadable(path, f"over {MAX_STATE_BYTES} bytes")
        entries = self._parse(path, data)
        self._cache = (key, entries)
        return entries

    def _unreadable(self, path: Path, why: str) -> TrustStateError:
        return TrustStateError(
            f"the accepted chain heads {path} cannot be read ({why}); it is a security record "
            "and is never reset silently: fix it, or remove it knowing that this consumer then "
            "accepts whatever the registry holds now", path=str(path))

    def _parse(self, path: Path, data: bytes) -> dict[str, AcceptedHead]:
        try:
            raw = json.loads(data.decode("utf-8"))
            entries = _entries_of(raw, os.path.realpath(self.root))
        except (ValueError, RecursionError, MemoryError, TypeError, KeyError) as exc:
            raise self._unreadable(path, f"not a record of accepted heads: {exc}"[:300]) \
                from None
        return entries

    def _write(self, entries: Mapping[str, AcceptedHead]) -> None:
        path = self.path
        document = {"format": STATE_FORMAT, "registry": os.path.realpath(self.root),
                    "tools": {name: {"seq": head.seq, "head": head.digest, "time": head.time}
                              for name, head in sorted(entries.items())}}
        data = (json.dumps(document, indent=1, sort_keys=True) + "\n").encode("utf-8")
        temp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}")
        try:
            fd = os.open(temp, _OPEN_NEW, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, path)
            fsync_dir(path.parent)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise TrustStateError(
                f"cannot record the accepted chain head in {path}: {exc.strerror or exc}; set "
                f"{TRUST_STATE_ENV} to a writable folder", path=str(path)) from None
        self._cache = None


def _entries_of(raw: Any, registry: str) -> dict[str, AcceptedHead]:
    if not isinstance(raw, dict) or raw.get("format") != STATE_FORMAT:
        raise ValueError(f"format must be {STATE_FORMAT}")
    if set(raw) != {"format", "registry", "tools"}:
        raise ValueError("unknown or missing keys")
    if raw["registry"] != registry:
        raise ValueError(f"it records the registry {str(raw['registry'])[:200]!r}, not "
                         f"{registry!r}")
    tools = raw["tools"]
    if not isinstance(tools, dict):
        raise ValueError("tools must be an object")
    entries: dict[str, AcceptedHead] = {}
    for name, entry in tools.items():
        if tool_name_problem(name) is not None:
            raise ValueError(f"{str(name)[:64]!r} is not a tool name")
        if not isinstance(entry, dict) or set(entry) != {"seq", "head", "time"}:
            raise ValueError(f"the entry of {name} must hold seq, head and time")
        seq, head, time = entry["seq"], entry["head"], entry["time"]
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise ValueError(f"the seq of {name} must be a whole number")
        if not isinstance(head, str) or len(head) != 64 or head.strip("0123456789abcdef"):
            raise ValueError(f"the head of {name} must be a SHA-256 in hex")
        if not isinstance(time, str):
            raise ValueError(f"the time of {name} must be text")
        entries[name] = AcceptedHead(seq, head, time)
    return entries
