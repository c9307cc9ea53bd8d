"""The open rule for one persisted version: the file is what was approved, and today's gate
still accepts it. Anything else is a quarantine reason.

Order matters for cost and for clarity: the hash is checked first (cheap, and an edited file
needs no further reason), then the gate runs on the exact bytes whose hash matched.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, NamedTuple

from dyntools.gate import check_source
from dyntools.gate.findings import sha256_hex
from dyntools.gate.policy import Policy
from dyntools.registry.manifest import VersionEntry
from dyntools.registry.store import NotARegularFile, read_regular

# Stable quarantine reason codes (shown in review output and in log lines).
FILE_MISSING = "file_missing"
NOT_REGULAR = "not_a_regular_file"
UNREADABLE = "unreadable"
HASH_MISMATCH = "hash_mismatch"
GATE_REJECTED = "gate_rejected"
NAME_MISMATCH = "name_mismatch"
RECORDED = "quarantined_by_reviewer"
MANIFEST_INVALID = "manifest_invalid"
HARD_LINKED = "hard_linked"
TOO_LARGE = "too_large"


class VersionCheck(NamedTuple):
    ok: bool
    reason_code: str | None = None
    reason: str | None = None
    findings: tuple[dict[str, Any], ...] = ()

    @classmethod
    def passed(cls) -> VersionCheck:
        return cls(ok=True)


def _read_failure(path: Path, exc: OSError) -> VersionCheck:
    if isinstance(exc, NotARegularFile):
        return VersionCheck(
            False, NOT_REGULAR, f"{path.name} is not a regular file ({exc.strerror})"
        )
    if exc.errno == errno.ENOENT:
        return VersionCheck(False, FILE_MISSING, f"{path.name} is missing")
    return VersionCheck(False, UNREADABLE, f"{path.name} cannot be read: {exc.strerror or exc}")


def check_bytes(data: bytes, entry: VersionEntry, policy: Policy, path: Path) -> VersionCheck:
    digest = sha256_hex(data)
    if digest != entry.sha256:
        return VersionCheck(
            False,
            HASH_MISMATCH,
            f"{path.name} was changed on disk: sha256 {digest[:12]}... does not match the "
            f"approved {entry.sha256[:12]}...",
        )
    report = check_source(data, policy, path=str(path))
    if not report.accepted:
        codes = ", ".join(sorted(report.codes))
        return VersionCheck(
            False,
            GATE_REJECTED,
            f"{path.name} fails today's gate ({codes}); the allow-list may have tightened",
            tuple(f.as_dict() for f in report.findings),
        )
    # The write path refuses a source whose NAME is not its tool's name; a manifest and file
    # forged together (without trusted keys nothing signs the manifest) must not get past the
    # open rule either.
    declared, folder_name = report.declared_name, path.parent.name
    if declared != folder_name:
        return VersionCheck(
            False,
            NAME_MISMATCH,
            f"{path.name} declares NAME = {declared!r}, not its tool's name {folder_name!r}",
        )
    return VersionCheck.passed()


def check_version(path: Path, entry: VersionEntry, policy: Policy) -> VersionCheck:
    """Hash-check and re-gate the file of one recorded version."""
    if entry.size > policy.limits.max_bytes:
        # The manifest's own `size` is no bound: a forged entry claiming gigabytes would have
        # a planted file read whole. Nothing over the gate's limit was ever approved.
        return VersionCheck(
            False, TOO_LARGE, f"{path.name} is recorded at {entry.size} bytes, over the "
            f"gate's source limit of {policy.limits.max_bytes} bytes",
        )
    try:
        # A file longer than recorded fails the hash anyway: never read a planted huge one
        # whole into memory.
        data = read_regular(path, limit=entry.size)
        links = os.lstat(path).st_nlink
    except OSError as exc:
        return _read_failure(path, exc)
    if links > 1:
        # A second name for the file lets it be edited where no watch looks: inotify reports
        # changes made through the registry's own path only, so an edit through the other
        # name would never be seen live. The registry never links a version file itself
        # once it is published.
        return VersionCheck(
            False,
            HARD_LINKED,
            f"{path.name} has {links} hard links: a version file must have exactly one "
            "name (an edit made through another name is invisible to watch); it is trusted "
            "again once the other names are removed and its hash still matches",
        )
    return check_bytes(data, entry, policy, path)
