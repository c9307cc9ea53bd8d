"""Where script runs are kept: `<registry>/.runs/`, one JSON file per run.

    store = RunStore(registry.root / RUNS_DIR)
    store.save(record)              # durably: temp file, fsync, rename, fsync of the folder
    store.load(run_id)              # UnknownRun if it is not kept
    with store.claim(run_id): ...   # one resume or promotion of a run at a time, across processes

The folder's name starts with a dot, so it is never a tool's name (the registry and its watch
skip dot entries); it holds a `.gitignore` of `*`, so a registry kept in git never commits a
run's inputs, output or tool results. It is private to its owner (0700, files 0600): a run's
inputs and results are the caller's data. Tool results in a record are what the script was
answered, which the broker had already redacted.

Bounds: a record is at most `max_record_bytes` (a finished run over it is kept without the
results of its tool calls, then without its output; a run that must wait for a decision and is
over it ends instead, since a resume needs those results); the folder keeps at most
`max_runs` records and `max_total_bytes` in all, removing the oldest finished runs first,
then the oldest waiting ones.

Every record carries a seal (seal.py), an HMAC under a key this user keeps outside the
registry: `load` refuses one that does not match it (`RunTampered`) before it believes any of
its fields, so an edited recorded result, limit or source never steers a resume or a
promotion. Every record also carries its step (`seq`, one more at each save), and this user
remembers the last step kept of each run outside the registry (progress.py): `load` refuses
an earlier record put back (`RunTampered`), so a resumed run is never resumed again.

The folder and every file in it are opened without following a symlink: the folder once,
with O_DIRECTORY|O_NOFOLLOW, and each file by name in that open folder (`dir_fd`), so a
`.runs` that is a link (to the operator's project, say) is refused (`RunsFolderUnsafe`,
reason `runs_folder_unsafe`) rather than filled with records and a `.gitignore` of `*`, and
no folder can be swapped for a link between the check and the use.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from dyntools.codemode.progress import RESUMING, RunProgress
from dyntools.codemode.record import (
    ERROR,
    OK,
    REFUSED,
    RUNNING,
    WAITING,
    RunRecord,
    run_id_problem,
)
from dyntools.codemode.seal import SEAL_FIELD, check_seal, read_own_file, seal_key, seal_of
from dyntools.errors import (
    PersistError,
    RunLimitExceeded,
    RunsFolderUnsafe,
    RunTampered,
    TrustStateError,
    UnknownRun,
    UsageError,
)

RUNS_DIR = ".runs"
GITIGNORE = "*\n"
SUFFIX = ".json"
MAX_RECORD_BYTES = 8 * 1024 * 1024
MAX_RUNS = 256
MAX_TOTAL_BYTES = 256 * 1024 * 1024
FINISHED = (OK, ERROR, REFUSED)
_OPEN_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OPEN_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class RunStore:
    """A registry's kept runs. Thread-safe for one record at a time per run (`claim`)."""

    def __init__(self, folder: Path, *, max_runs: int = MAX_RUNS,
                 max_record_bytes: int = MAX_RECORD_BYTES,
                 max_total_bytes: int = MAX_TOTAL_BYTES) -> None:
        self.folder = folder
        self.max_runs = max_runs
        self.max_record_bytes = max_record_bytes
        self.max_total_bytes = max_total_bytes

    @property
    def registry_root(self) -> Path:
        """The registry this folder belongs to (its id is part of every seal)."""
        return self.folder.parent

    @property
    def progress(self) -> RunProgress:
        return RunProgress(self.registry_root)

    @contextlib.contextmanager
    def opened(self, *, create: bool = False) -> Iterator[int]:
        """The runs folder, open (an fd for `dir_fd`), never through a symlink.
        FileNotFoundError when it does not exist (and not `create`); RunsFolderUnsafe when
        it is a symlink or not a folder; OSError otherwise."""
        try:
            fd = os.open(self.folder, _OPEN_FOLDER)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):  # mkdir never follows a final link
                os.mkdir(self.folder, 0o700)
            fd = self._open_existing()
        except OSError as exc:
            raise self._unsafe(exc) from None
        try:
            yield fd
        finally:
            os.close(fd)

    def _open_existing(self) -> int:
        try:
            return os.open(self.folder, _OPEN_FOLDER)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise self._unsafe(exc) from None

    def _unsafe(self, exc: OSError) -> OSError | RunsFolderUnsafe:
        import errno

        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            return RunsFolderUnsafe(
                f"{self.folder} is a symlink or not a folder: runs are kept only in a real "
                "folder of the registry (remove the link; dyntools makes the folder)",
                path=str(self.folder))
        return exc

    # ------------------------------------------------------------------------------ reading

    def path_of(self, run_id: str) -> Path:
        problem = run_id_problem(run_id)
        if problem is not None:
            raise UnknownRun(problem, run_id=str(run_id)[:40])
        return self.folder / f"{run_id}{SUFFIX}"

    def load(self, run_id: str) -> RunRecord:
        """The kept record of `run_id`; UnknownRun when there is none (never made, or
        removed by retention), RunLimitExceeded... never: a record that cannot be read or is
        not well formed is UnknownRun too, with why."""
        path = self.path_of(run_id)
        try:
            # A record steers a resume (its replayed results, its source): one another
            # user could have written is not read.
            with self.opened() as folder:
                data = read_own_file(path.name, self.max_record_bytes + 1,
                                     others_may_read=True, dir_fd=folder)
        except FileNotFoundError:
            raise UnknownRun(f"no run {run_id} is kept in {self.folder} (never made here, or "
                             "removed by the retention limit)", run_id=run_id) from None
        except OSError as exc:
            raise UnknownRun(f"run {run_id} cannot be read: {exc.strerror or exc}",
                             run_id=run_id) from None
        if len(data) > self.max_record_bytes:
            raise UnknownRun(f"run {run_id}'s record is over {self.max_record_bytes} bytes; it "
                             "is not read", run_id=run_id)
        try:
            body = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise UnknownRun(f"run {run_id}'s record is not one dyntools wrote: {exc}",
                             run_id=run_id) from None
        if not isinstance(body, dict):
            raise UnknownRun(f"run {run_id}'s record is not one dyntools wrote: not an "
                             "object", run_id=run_id)
        # Before anything of it is believed: RunTampered when it is not as it was kept.
        check_seal(seal_key(), self.registry_root, run_id, body)
        try:
            record = RunRecord.from_dict(body)
        except (ValueError, RecursionError) as exc:
            raise UnknownRun(f"run {run_id}'s record is not one dyntools wrote: {exc}",
                             run_id=run_id) from None
        if record.run_id != run_id:
            raise UnknownRun(f"the record in {path.name} is of another run", run_id=run_id)
        stale = self.progress.problem(run_id, record.seq)
        if stale is not None:
            raise RunTampered(stale, run_id=run_id, seq=record.seq)
        return record

    def begin_resume(self, record: RunRecord) -> None:
        """Before a resume runs any call: remember that this step of the run was taken, so
        its waiting record is never resumed again, even if this resume cannot keep what it
        did (a crash, a read-only registry). PersistError when that cannot be remembered."""
        try:
            self.progress.advance(record.run_id, record.seq + 1, RESUMING, sync=True)
        except TrustStateError as exc:
            raise PersistError(f"cannot resume run {record.run_id}: {exc.message}",
                               run_id=record.run_id) from None
        record.seq += 1

    def records(self) -> list[RunRecord]:
        """Every readable kept run, newest first (a record that cannot be read, does not
        match its seal or is older than the step kept, is skipped; nothing is listed through
        a `.runs` that is a symlink)."""
        found: list[tuple[str, RunRecord]] = []
        try:
            ids = self._ids()
        except RunsFolderUnsafe:
            return []
        for run_id in ids:
            with contextlib.suppress(UnknownRun, RunTampered, TrustStateError, PersistError):
                record = self.load(run_id)
                found.append((record.updated, record))
        found.sort(key=lambda pair: pair[0], reverse=True)
        return [record for _, record in found]

    def _ids(self) -> list[str]:
        try:
            with self.opened() as folder:
                names = os.listdir(folder)
        except OSError:
            return []
        return [name[:-len(SUFFIX)] for name in names if name.endswith(SUFFIX)
                and run_id_problem(name[:-len(SUFFIX)]) is None]

    # ------------------------------------------------------------------------------ writing

    def save(self, record: RunRecord) -> None:
        """Keep `record` within the bounds (see the module docstring); then apply the
        retention limit. A waiting record is made durable (fsync of the file and the folder)
        before this returns: a resume needs it after any crash. A finished one is replaced
        atomically but not synced: losing it to a power cut loses a page and a promotion,
        and the fsyncs were most of a short run's own cost (bench/code_mode.py).
        PersistError when the folder cannot be written (a read-only registry);
        RunLimitExceeded when a waiting record is over the size cap. Every record is
        sealed (seal.py): PersistError when this user's seal key cannot be had."""
        progress = self.progress
        try:
            key = seal_key()
            kept = progress.accepted(record.run_id)
        except TrustStateError as exc:
            raise PersistError(f"cannot keep run {record.run_id}: {exc.message}",
                               run_id=record.run_id) from None
        record.seq = max(record.seq, kept.seq if kept is not None else 0) + 1
        data = self._encoded(record, key)
        durable = record.status in (WAITING, RUNNING)
        try:
            with self.opened(create=True) as folder:
                self._prepare(folder)
                _replace_in(folder, self.path_of(record.run_id).name, data, sync=durable)
        except OSError as exc:
            raise PersistError(f"cannot keep run {record.run_id} in {self.folder}: "
                               f"{exc.strerror or exc}", run_id=record.run_id) from None
        try:
            # After the record: a crash between the two leaves the newer record and the
            # older step, which accepts it; never the other way round.
            progress.advance(record.run_id, record.seq, record.status, sync=durable)
        except TrustStateError as exc:
            raise PersistError(f"cannot keep run {record.run_id}: {exc.message}",
                               run_id=record.run_id) from None
        self.prune(keep=record.run_id)

    def _encoded(self, record: RunRecord, key: bytes) -> bytes:
        data = _sealed(record, key, self.registry_root)
        if len(data) <= self.max_record_bytes:
            return data
        if record.status == WAITING:
            raise RunLimitExceeded(
                f"run {record.run_id} cannot wait: its record would be {len(data)} bytes, "
                f"over the cap of {self.max_record_bytes} for a kept run (a resume needs the "
                "results of its tool calls); make the script's tool results smaller",
                run_id=record.run_id, bytes=len(data))
        record.trimmed = True
        for call in record.calls:
            call.result = None if call.result is None else {}
            call.params = {}
        data = _sealed(record, key, self.registry_root)
        if len(data) > self.max_record_bytes:
            record.output = record.output[:4096]
            data = _sealed(record, key, self.registry_root)
        if len(data) > self.max_record_bytes:
            record.inputs, record.result = {}, None
            data = _sealed(record, key, self.registry_root)
        return data

    @staticmethod
    def _prepare(folder: int) -> None:
        """The folder's `.gitignore` of `*`, made once (a symlink there is left alone: it
        is never followed)."""
        with contextlib.suppress(FileExistsError):
            fd = os.open(".gitignore", _OPEN_NEW, 0o600, dir_fd=folder)
            try:
                os.write(fd, GITIGNORE.encode())
            finally:
                os.close(fd)

    def prune(self, *, keep: str | None = None) -> list[str]:
        """Remove the oldest runs past `max_runs` or `max_total_bytes`: finished ones first
        (oldest first), then waiting ones; never `keep`. Returns the ids removed. Within the
        bounds it costs one listing of the folder and a stat per record."""
        try:
            with self.opened() as folder:
                return self._prune(folder, keep)
        except OSError:
            return []

    def _prune(self, folder: int, keep: str | None) -> list[str]:
        found: list[tuple[float, str, int]] = []
        listing = list(os.scandir(folder))
        for entry in listing:
            name = entry.name
            if not name.endswith(SUFFIX) or run_id_problem(name[:-len(SUFFIX)]) is not None:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((info.st_mtime, name[:-len(SUFFIX)], info.st_size))
        count = len(found)
        total = sum(size for *_, size in found)
        if count <= self.max_runs and total <= self.max_total_bytes:
            return []
        entries = [(self._status(folder, f"{run_id}{SUFFIX}") == WAITING, mtime, run_id,
                    size) for mtime, run_id, size in found]
        removed: list[str] = []
        for waiting, _, run_id, size in sorted(entries):
            if count <= self.max_runs and total <= self.max_total_bytes:
                break
            if run_id == keep:
                continue
            with contextlib.suppress(OSError):
                os.unlink(f"{run_id}{SUFFIX}", dir_fd=folder)
                removed.append(run_id)
                count -= 1
                total -= size
                os.unlink(f".{run_id}.lock", dir_fd=folder)
            del waiting
        return removed

    @staticmethod
    def _status(folder: int, name: str) -> str | None:
        """A record's status from its first bytes (the JSON begins with the run id and the
        status), without parsing a record of megabytes."""
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                         dir_fd=folder)
        except OSError:
            return None
        try:
            head = os.read(fd, 200).decode("utf-8", "replace")
        except OSError:
            return None
        finally:
            os.close(fd)
        marker = '"status": "'
        start = head.find(marker)
        if start < 0:
            return None
        start += len(marker)
        return head[start:head.find('"', start)]

    @contextlib.contextmanager
    def claim(self, run_id: str) -> Iterator[None]:
        """Hold run `run_id` for one resume or promotion: another process (or thread) that
        asks meanwhile gets a UsageError at once rather than running it twice."""
        import filelock

        name = self.path_of(run_id).name  # a bad id never names a lock file
        missing = UnknownRun(f"no run {run_id} is kept in {self.folder} (never made here, or "
                             "removed by the retention limit)", run_id=run_id)
        stack = contextlib.ExitStack()
        try:
            folder = stack.enter_context(self.opened())
            os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            stack.close()
            raise missing from None
        except OSError as exc:
            stack.close()
            raise PersistError(f"cannot read {self.folder}: {exc.strerror or exc}",
                               run_id=run_id) from None
        with stack:
            # The lock file is named through the folder held open, where /proc has it: the
            # folder cannot be swapped for a link between the check above and the lock.
            held = Path(f"/proc/self/fd/{folder}")
            where = held if held.is_dir() else self.folder
            # A lock object of its own per claim: filelock's locks are reentrant within a
            # thread, and a second claim from the same thread must be refused too.
            lock = filelock.FileLock(where / f".{run_id}.lock", timeout=0, mode=0o600,
                                     thread_local=False, is_singleton=False)
            try:
                lock.acquire()
            except filelock.Timeout:
                raise UsageError(f"run {run_id} is being resumed or promoted by another "
                                 "caller; try again when it is done", run_id=run_id) from None
            except OSError as exc:
                raise PersistError(f"cannot lock run {run_id} in {self.folder}: "
                                   f"{exc.strerror or exc}", run_id=run_id) from None
            try:
                yield
            finally:
                lock.release()


def _replace_in(folder: int, name: str, data: bytes, *, sync: bool) -> None:
    """Replace `name` in the open `folder` with `data`: a fresh temp file there, renamed over
    it; with `sync`, the file and then the rename are made durable."""
    temp = f".tmp-{name}-{os.getpid()}-{os.urandom(4).hex()}"
    fd = os.open(temp, _OPEN_NEW, 0o600, dir_fd=folder)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder)
        raise
    if sync:
        os.fsync(folder)


def _sealed(record: RunRecord, key: bytes, registry_root: Path) -> bytes:
    """The record as kept: its JSON (the run id and the status first, see `_status`) with
    its seal as the last field."""
    body = record.as_dict()
    body[SEAL_FIELD] = seal_of(key, registry_root, body)
    return json.dumps(body, ensure_ascii=False, indent=1,
                      allow_nan=False).encode("utf-8", "surrogatepass")
