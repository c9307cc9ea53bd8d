"""The seal of a kept run: an HMAC-SHA256 under a key this user keeps outside the registry.

    key = seal_key()                                   # made once, 32 random bytes, 0600
    record["seal"] = seal_of(key, registry_root, body)  # when a run is kept
    check_seal(key, registry_root, run_id, data)        # RunTampered when it does not match

Threat: a kept run steers what a resume does. Its recorded tool results are answered to the
script instead of calling the tools again, its limits bound the resumed run, its source is
what runs. Whoever can write the registry's `.runs/` (a registry shared through Git or a
network folder, a backup restored, another program of the same user) could otherwise edit a
result the script branches on, raise its limits, or swap its source together with the
recorded SHA-256. The ownership checks of the store stop other users only. The key lives in
this user's state folder (`DYNTOOLS_TRUST_STATE`, else `$XDG_STATE_HOME/dyntools/heads`, as the
accepted chain heads do), never in the registry, so an edit made through the registry cannot
make a matching seal. The MAC covers the canonical JSON of the whole record (every field but
the seal) and the registry's id (the SHA-256 of its real path), so a record copied into
another registry does not verify either.

Fail closed: a record without a seal, with a wrong one, or a key that cannot be read or made
is refused (`RunTampered`, reason `run_tampered`; `TrustStateError` for the key). Not covered:
a process running as this user can read the key as well; the seal is not a signature.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

from dyntools.errors import RunTampered, TrustStateError
from dyntools.registry.freshness import registry_id, state_folder

SEAL_FIELD = "seal"
KEY_FILE = "runs.key"
KEY_BYTES = 32
DOMAIN = b"dyntools-run-seal-v1\n"

_cache: dict[Path, bytes] = {}
_cache_lock = threading.Lock()


def key_path() -> Path:
    return state_folder() / KEY_FILE


def seal_key() -> bytes:
    """This user's run-seal key, made on first use. TrustStateError when it cannot be read
    or made (it is never replaced silently: a new key would unseal every waiting run)."""
    path = key_path()
    with _cache_lock:
        known = _cache.get(path)
        if known is not None:
            return known
        try:
            key = _read_key(path)
        except FileNotFoundError:
            key = _make_key(path)
        except OSError as exc:
            raise TrustStateError(f"the run-seal key {path} cannot be read: "
                                  f"{exc.strerror or exc}", path=str(path)) from None
        _cache[path] = key
        return key


def forget_keys() -> None:
    """Read the key from disk again at its next use (as a new process would)."""
    with _cache_lock:
        _cache.clear()


def _read_key(path: Path) -> bytes:
    key = read_own_file(path, KEY_BYTES + 1, others_may_read=False)
    if len(key) != KEY_BYTES:
        raise OSError(errno.EINVAL, f"holds {len(key)} bytes, not {KEY_BYTES}")
    return key


def read_own_file(path: Path | str, limit: int, *, others_may_read: bool,
                  dir_fd: int | None = None) -> bytes:
    """At most `limit` bytes of `path`: a regular file (no symlink followed) that this user
    owns, that no one else may write and, unless `others_may_read`, read (the seal key).
    What steers a run (its key, its kept record) is never read from a file another user
    could have written. `dir_fd`: `path` is a name in that open folder (no path of folders
    is walked again, so none of them can be swapped for a link meanwhile). OSError says what
    is wrong with the file."""
    forbidden, who = ((0o022, "writable by others") if others_may_read
                      else (0o077, "readable by others"))
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK,
                 dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "is not a regular file")
        if info.st_uid != os.geteuid() or info.st_mode & forbidden:
            raise OSError(errno.EPERM, f"is owned by another user or {who}")
        chunks: list[bytes] = []
        size = 0
        while size < limit:
            chunk = os.read(fd, min(1 << 20, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _make_key(path: Path) -> bytes:
    """A new key, written whole to a temporary file and then linked into place: a process
    that makes one at the same moment reads the one that won, never a half-written file."""
    key = os.urandom(KEY_BYTES)
    temp = path.with_name(f".{KEY_FILE}.{os.urandom(8).hex()}")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
                     | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, key)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, path)
        except FileExistsError:
            return _read_key(path)  # another process made it meanwhile: theirs holds
        return key
    except OSError as exc:
        raise TrustStateError(f"the run-seal key {path} cannot be made or read: "
                              f"{exc.strerror or exc} (set DYNTOOLS_TRUST_STATE to a folder "
                              "this user may write)", path=str(path)) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)


def canonical(body: dict[str, Any]) -> bytes:
    """The bytes a seal covers: `body` without its seal, as canonical JSON."""
    rest = {name: value for name, value in body.items() if name != SEAL_FIELD}
    return json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8", "surrogatepass")


def seal_of(key: bytes, registry_root: Path, body: dict[str, Any]) -> str:
    mac = hmac.new(key, DOMAIN, hashlib.sha256)
    mac.update(registry_id(registry_root).encode("ascii") + b"\n")
    mac.update(canonical(body))
    return mac.hexdigest()


def check_seal(key: bytes, registry_root: Path, run_id: str, body: dict[str, Any]) -> None:
    """RunTampered unless `body` carries the seal this key gives it in this registry."""
    found = body.get(SEAL_FIELD)
    if not isinstance(found, str):
        raise RunTampered(f"run {run_id}'s record has no seal: it was not kept by dyntools "
                          "for this user (or was edited); start the script again with "
                          "dyntools run", run_id=run_id)
    try:
        expected = seal_of(key, registry_root, body)
    except (TypeError, ValueError, RecursionError):
        raise RunTampered(f"run {run_id}'s record is not JSON data dyntools writes",
                          run_id=run_id) from None
    if not hmac.compare_digest(found.encode("utf-8", "replace"), expected.encode("ascii")):
        raise RunTampered(f"run {run_id}'s record does not match its seal: it was edited "
                          "after dyntools kept it (its recorded results, limits or source), "
                          "copied from another registry, or kept under another key; it is "
                          "not resumed or promoted (start the script again with dyntools "
                          "run)", run_id=run_id)


__all__ = ["KEY_FILE", "SEAL_FIELD", "check_seal", "forget_keys", "key_path", "seal_key",
           "seal_of"]
