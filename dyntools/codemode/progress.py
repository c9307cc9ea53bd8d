"""How far each kept run has got, as this user saw it, kept outside the registry.

    progress = RunProgress(registry_root)
    progress.advance(run_id, seq, status, sync=True)   # after a record is kept, or a resume began
    progress.problem(run_id, seq)                       # why a record of step `seq` is stale

Threat: the seal (seal.py) says a record is one dyntools kept, not that it is the latest one.
Whoever can write the registry's `.runs/` could put back an earlier sealed record of a run (a
copy made while it waited, a backup, the Git history): `resume` would run again the call the
run waited at and everything after it, which already ran ("no completed call runs twice"), and
`promote` could promote a run twice. So every record carries `seq`, one more at each save, and
this file remembers, per run, the highest `seq` this user kept (or the step a resume began at);
a record older than that is refused (`RunTampered`, reason `run_tampered`), as the decision
chains' freshness refuses an older manifest (registry/freshness.py).

    <state folder>/runs-<registry id>/<run id>.json   {"seq": 3, "status": "ok", "time": "..."}

The state folder is the seal key's (`DYNTOOLS_TRUST_STATE`, else
`$XDG_STATE_HOME/dyntools/heads`); the registry id is the SHA-256 of its real path. One small
file per run: two runs never contend for one file, and each run is changed only under its
claim (store.py). A file is written whole (temp file, rename) and read without following a
symlink, only when this user owns it and no one else may write it; one that cannot be read or
parsed refuses (`TrustStateError`), it is never reset silently.

What remains: a consumer with no state (another account or machine, a removed state folder, or
a run forgotten past `MAX_REMEMBERED`) accepts any record that matches its seal, as a consumer
with no accepted chain heads accepts any chain; the seal key lives in the same folder, so the
first two cannot make a matching seal either.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import NamedTuple

from dyntools.codemode.record import run_id_problem
from dyntools.codemode.seal import read_own_file
from dyntools.errors import TrustStateError
from dyntools.registry.freshness import TRUST_STATE_ENV, registry_id, state_folder
from dyntools.registry.manifest import utc_now

RESUMING = "resuming"
MAX_STATE_BYTES = 4096
MAX_REMEMBERED = 4096  # runs remembered per registry; the oldest are forgotten past it
_OPEN_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW


class Step(NamedTuple):
    seq: int
    status: str
    time: str


class RunProgress:
    """This user's record of how far each run of one registry has got."""

    def __init__(self, registry_root: Path) -> None:
        self.registry_root = registry_root

    @property
    def folder(self) -> Path:
        return state_folder() / f"runs-{registry_id(self.registry_root)}"

    def accepted(self, run_id: str) -> Step | None:
        """The step last kept for `run_id`, None when this user has none. TrustStateError
        when the file cannot be read or is not one this module writes."""
        path = self.folder / f"{run_id}.json"
        try:
            data = read_own_file(path, MAX_STATE_BYTES + 1, others_may_read=True)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _unreadable(path, exc.strerror or str(exc)) from None
        try:
            body = json.loads(data)
            return _step_of(body)
        except (ValueError, TypeError, RecursionError) as exc:
            raise _unreadable(path, f"not a record of a run's progress: {exc}"[:300]) from None

    def problem(self, run_id: str, seq: int) -> str | None:
        """Why a record of `run_id` at step `seq` is older than what this user kept."""
        step = self.accepted(run_id)
        if step is None or seq >= step.seq:
            return None
        if step.status == RESUMING:
            return (f"run {run_id}'s record is step {seq}, but a resume from it began on "
                    f"{step.time} and did not keep its outcome: the calls it made are not "
                    "run again (start the script again with dyntools run)")
        return (f"run {run_id}'s record is step {seq}, but this user kept step {step.seq} "
                f"({step.status}) on {step.time}: an earlier copy of the record was put back "
                "(a backup, the Git history, a saved file); it is not resumed or promoted, so "
                "no completed call runs twice")

    def advance(self, run_id: str, seq: int, status: str, *, sync: bool) -> None:
        """Remember step `seq` of `run_id` (never lower than the step kept before).
        TrustStateError when it cannot be written."""
        if run_id_problem(run_id) is not None:
            raise TrustStateError(f"{run_id[:40]!r} is not a run id")
        folder = self.folder
        path = folder / f"{run_id}.json"
        known = self.accepted(run_id)
        if known is not None and known.seq > seq:
            return
        data = json.dumps({"seq": seq, "status": status, "time": utc_now()}).encode()
        temp = folder / f".{run_id}.{os.getpid()}-{os.urandom(4).hex()}"
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fresh = known is None
            fd = os.open(temp, _OPEN_NEW, 0o600)
            try:
                os.write(fd, data)
                if sync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise TrustStateError(f"cannot record run {run_id}'s progress in {folder}: "
                                  f"{exc.strerror or exc}; set {TRUST_STATE_ENV} to a "
                                  "writable folder", path=str(folder)) from None
        if fresh:
            self._forget_oldest(folder)

    @staticmethod
    def _forget_oldest(folder: Path) -> None:
        """Past MAX_REMEMBERED runs, forget the least recently changed ones (bounded disk)."""
        with contextlib.suppress(OSError):
            entries = [entry for entry in os.scandir(folder)
                       if entry.name.endswith(".json") and not entry.name.startswith(".")]
            if len(entries) <= MAX_REMEMBERED:
                return
            dated = sorted((entry.stat(follow_symlinks=False).st_mtime_ns, entry.name)
                           for entry in entries
                           if stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode))
            for _, name in dated[:len(dated) - MAX_REMEMBERED]:
                with contextlib.suppress(OSError):
                    os.unlink(folder / name)


def _step_of(body: object) -> Step:
    if not isinstance(body, dict) or set(body) != {"seq", "status", "time"}:
        raise ValueError("it must hold seq, status and time")
    seq, status, time = body["seq"], body["status"], body["time"]
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise ValueError("seq must be a whole number")
    if not isinstance(status, str) or not isinstance(time, str):
        raise ValueError("status and time must be text")
    return Step(seq, status[:20], time[:40])


def _unreadable(path: Path, why: str) -> TrustStateError:
    return TrustStateError(
        f"the record of a run's progress {path} cannot be read ({why}); it is what catches an "
        "earlier copy of a kept run put back, and is never reset silently: fix it, or remove "
        "it knowing that this run's kept record is then believed whatever its age",
        path=str(path))


__all__ = ["RESUMING", "RunProgress", "Step"]
