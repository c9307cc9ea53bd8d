"""What the registry hands out: version records, tool states, unrecorded files, and the
rules for locating a registry and naming a version's module.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from dyntools.base.toolname import tool_name_problem
from dyntools.errors import UsageError
from dyntools.registry.manifest import APPROVED

if TYPE_CHECKING:
    from dyntools.registry.chain import ChainVerdict

REGISTRY_ENV = "DYNTOOLS_REGISTRY"
DEFAULT_REGISTRY_DIR = "generated_tools"
MODULE_PREFIX = "dyntools_tools"


def resolve_registry_path(option: str | os.PathLike[str] | None = None) -> Path:
    """`--registry PATH`, else `DYNTOOLS_REGISTRY`, else `./generated_tools`."""
    if option is not None and str(option):
        return Path(option)
    env = os.environ.get(REGISTRY_ENV)
    if env:
        return Path(env)
    return Path.cwd() / DEFAULT_REGISTRY_DIR


def module_name_for(name: str, version: int) -> str:
    """The module name a sandbox worker imports a version under."""
    return f"{MODULE_PREFIX}.{name}.v{version}"


def require_valid_name(name: object) -> str:
    problem = tool_name_problem(name)
    if problem is not None:
        raise UsageError(problem, name=repr(name))
    assert isinstance(name, str)
    return name


# The registry's immutable values are NamedTuples: they compare, hash and refuse assignment.
class VersionRecord(NamedTuple):
    """One persisted version as the registry sees it now.

    `status` is the effective status: a recorded "approved" version that failed today's checks
    reads "quarantined" here, with `reason_code`/`reason` saying why.
    """

    name: str
    version: int
    path: Path
    status: str
    reason: str | None
    reason_code: str | None
    recorded_status: str
    sha256: str
    size: int
    created: str
    policy_digest: str
    provenance: Mapping[str, Any]
    gate: Mapping[str, Any]
    findings: tuple[dict[str, Any], ...] = ()
    decisions: tuple[Mapping[str, Any], ...] = ()
    signature: Mapping[str, Any] | None = None

    @property
    def usable(self) -> bool:
        return self.status == APPROVED

    @property
    def last_decision(self) -> Mapping[str, Any] | None:
        """The latest reviewer decision (who, when, why), or None."""
        return self.decisions[-1] if self.decisions else None

    @property
    def module_name(self) -> str:
        return module_name_for(self.name, self.version)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "path": str(self.path),
            "module": self.module_name,
            "status": self.status,
            "reason": self.reason,
            "reason_code": self.reason_code,
            "recorded_status": self.recorded_status,
            "sha256": self.sha256,
            "size": self.size,
            "created": self.created,
            "policy_digest": self.policy_digest,
            "provenance": dict(self.provenance),
            "gate": dict(self.gate),
            "findings": list(self.findings),
            "decisions": [dict(d) for d in self.decisions],
            "signature": dict(self.signature) if self.signature is not None else None,
        }


class Unrecorded(NamedTuple):
    """A file or folder in the registry that no manifest vouches for: never trusted."""

    name: str
    path: Path
    version: int | None
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": str(self.path), "version": self.version,
                "reason": self.reason}


_NO_RECORDS: Mapping[int, VersionRecord] = MappingProxyType({})


class ToolState(NamedTuple):
    name: str
    records: Mapping[int, VersionRecord] = _NO_RECORDS  # read-only: one shared empty map
    current: int | None = None
    recorded_current: int | None = None
    error: str | None = None
    unrecorded: tuple[Unrecorded, ...] = ()
    history: tuple[Mapping[str, Any], ...] = ()
    # With trusted keys: what the tool's decision chain says (chain.py); None without them.
    chain: ChainVerdict | None = None
    # The tool this name serves as recorded (an alias has no versions of its own); whether
    # it is served is `Registry.alias_of`'s (with trusted keys, the chain must vouch for it).
    alias: str | None = None

    @property
    def current_record(self) -> VersionRecord | None:
        return self.records.get(self.current) if self.current is not None else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "current": self.current,
            "recorded_current": self.recorded_current,
            "error": self.error,
            "versions": [self.records[v].as_dict() for v in sorted(self.records)],
            "unrecorded": [u.as_dict() for u in self.unrecorded],
            "history": [dict(e) for e in self.history],
            "chain": self.chain.as_dict() if self.chain is not None else None,
            "alias": self.alias,
        }


StatKey = tuple[int, int, int, int]


def stat_key(path: Path) -> StatKey | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def effective_current(recorded: int | None, records: Mapping[int, VersionRecord]) -> int | None:
    """The recorded pointer if usable, else the newest usable version below it, else None."""
    if recorded is None:
        return None
    for version in sorted((v for v in records if v <= recorded), reverse=True):
        if records[version].usable:
            return version
    return None
