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
promotion.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

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
            data = read_own_file(path, self.max_record_bytes + 1, others_may_read=True)
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
        return record

    def records(self) -> list[RunRecord]:
        """Every readable kept run, newest first (a record that cannot be read, or does not
        match its seal, is skipped)."""
        found: list[tuple[str, RunRecord]] = []
        for run_id in self._ids():
            with contextlib.suppress(UnknownRun, RunTampered):
                record = self.load(run_id)
                found.append((record.updated, record))
        found.sort(key=lambda pair: pair[0], reverse=True)
        return [record for _, record in found]

    def _ids(self) -> list[str]:
        try:
            names = os.listdir(self.folder)
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
        try:
            key = seal_key()
        except TrustStateError as exc:
            raise PersistError(f"cannot keep run {record.run_id}: {exc.message}",
                               run_id=record.run_id) from None
        data = self._encoded(record, key)
        from dyntools.registry.store import publish, write_temp

        try:
            self._prepare()
            target = self.path_of(record.run_id)
            durable = record.status in (WAITING, RUNNING)
            temp = write_temp(target, data, 0o600, sync=durable)
            if durable:
                publish(temp, target)
            else:
                os.replace(temp, target)
        except OSError as exc:
            raise PersistError(f"cannot keep run {record.run_id} in {self.folder}: "
                               f"{exc.strerror or exc}", run_id=record.run_id) from None
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

    def _prepare(self) -> None:
        if not self.folder.is_dir():
            self.folder.mkdir(mode=0o700, parents=False, exist_ok=True)
        ignore = self.folder / ".gitignore"
        if not ignore.exists():
            with contextlib.suppress(FileExistsError):
                fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                try:
                    os.write(fd, GITIGNORE.encode())
                finally:
                    os.close(fd)

    def prune(self, *, keep: str | None = None) -> list[str]:
        """Remove the oldest runs past `max_runs` or `max_total_bytes`: finished ones first
        (oldest first), then waiting ones; never `keep`. Returns the ids removed. Within the
        bounds it costs one listing of the folder and a stat per record."""
        found: list[tuple[float, str, int]] = []
        try:
            listing = list(os.scandir(self.folder))
        except OSError:
            return []
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
        entries = [(self._status(self.folder / f"{run_id}{SUFFIX}") == WAITING, mtime, run_id,
                    size) for mtime, run_id, size in found]
        removed: list[str] = []
        for waiting, _, run_id, size in sorted(entries):
            if count <= self.max_runs and total <= self.max_total_bytes:
                break
            if run_id == keep:
                continue
            with contextlib.suppress(OSError):
                (self.folder / f"{run_id}{SUFFIX}").unlink()
                removed.append(run_id)
                count -= 1
                total -= size
                (self.folder / f".{run_id}.lock").unlink(missing_ok=True)
            del waiting
        return removed

    @staticmethod
    def _status(path: Path) -> str | None:
        """A record's status from its first bytes (the JSON begins with the run id and the
        status), without parsing a record of megabytes."""
        try:
            with open(path, "rb") as handle:
                head = handle.read(200).decode("utf-8", "replace")
        except OSError:
            return None
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

        if not self.path_of(run_id).exists():  # a bad id never names a lock file
            raise UnknownRun(f"no run {run_id} is kept in {self.folder} (never made here, or "
                             "removed by the retention limit)", run_id=run_id)
        # A lock object of its own per claim: filelock's locks are reentrant within a
        # thread, and a second claim from the same thread must be refused too.
        lock = filelock.FileLock(self.folder / f".{run_id}.lock", timeout=0, mode=0o600,
                                 thread_local=False, is_singleton=False)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise UsageError(f"run {run_id} is being resumed or promoted by another caller; "
                             "try again when it is done", run_id=run_id) from None
        except OSError as exc:
            raise PersistError(f"cannot lock run {run_id} in {self.folder}: "
                               f"{exc.strerror or exc}", run_id=run_id) from None
        try:
            yield
        finally:
            lock.release()


def _sealed(record: RunRecord, key: bytes, registry_root: Path) -> bytes:
    """The record as kept: its JSON (the run id and the status first, see `_status`) with
    its seal as the last field."""
    body = record.as_dict()
    body[SEAL_FIELD] = seal_of(key, registry_root, body)
    return json.dumps(body, ensure_ascii=False, indent=1,
                      allow_nan=False).encode("utf-8", "surrogatepass")
