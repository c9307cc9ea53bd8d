"""The per-tool manifest: `<root>/<name>/manifest.json`, read and written as plain data.

    {
      "format": 1,
      "name": "slugify_text",
      "current": 2,                      # the pointer; null when no version is current
      "versions": [
        {"version": 1, "sha256": "...", "size": 512, "status": "approved", "reason": null,
         "created": "2026-01-01T00:00:00+00:00", "policy_digest": "...",
         "provenance": {"generator": "offline", "model": null, "attempts": 1,
                        "prompt_sha256": "...", "time": "..."},
         "gate": {"accepted": true, "findings": [], ...}},
        ...
      ],
      "history": [{"time": "...", "action": "activate", "from": 1, "to": 2}, ...],
      "chain": [{"tool": "slugify_text", "seq": 0, "prev": null, "action": "ensure", ...}]
    }

`chain` (written only when a decision was signed) is the tool's decision chain: signed records,
each holding the hash of the one before (chain.py checks them; this module only keeps them).

`alias` (written only when set) makes the name another tool's: `{"name": "count_words",
"alias": "word_count", "current": null, "versions": [], ...}` serves word_count's current
version under count_words (`ensure --reuse-similar`, `dyntools alias`). A name that is an
alias has no versions of its own.

A version's file is always `v<version>.py` next to the manifest: the path is derived from the
number, never read from the manifest, so an edited manifest cannot point outside the folder.
Parsing validates every field and raises `ManifestError` quoting what is wrong; the registry
treats a manifest it cannot parse as tampering (the tool is quarantined, nothing runs).

A manifest is read at most MAX_MANIFEST_BYTES (32 MiB: a tool with thousands of versions and
a long chain stays well under it); a larger one is invalid, never read whole (a sparse 3 GiB
file planted by a registry writer exhausted memory).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, NamedTuple

from dyntools.base.toolname import tool_name_problem

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = 1

APPROVED = "approved"
REJECTED = "rejected"
QUARANTINED = "quarantined"
# Passed the gate and verification but waits for a person (the registry's approval policy).
PENDING = "pending"
# Kept on disk and in history, never served, and no longer a problem for `review`.
RETIRED = "retired"
STATUSES = frozenset({APPROVED, REJECTED, QUARANTINED, PENDING, RETIRED})

_SHA256 = re.compile(r"[0-9a-f]{64}")
_VERSION_FILE = re.compile(r"v([1-9][0-9]{0,8})\.py")
# The largest version number a manifest may record (and a version file name may carry).
MAX_VERSION = 10**9 - 1
# The largest manifest read: over it the manifest is invalid (and never read whole).
MAX_MANIFEST_BYTES = 32 << 20


class ManifestError(ValueError):
    """The manifest is not valid JSON or not the shape this module writes."""


def version_in_range(version: object) -> bool:
    return isinstance(version, int) and not isinstance(version, bool) and 0 < version <= MAX_VERSION


def version_file_name(version: int) -> str:
    return f"v{version}.py"


def parse_version_file_name(file_name: str) -> int | None:
    """`v12.py` -> 12; anything else (v0.py, v01.py, x.py) -> None."""
    match = _VERSION_FILE.fullmatch(file_name)
    return int(match.group(1)) if match else None


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class VersionEntry(NamedTuple):
    version: int
    sha256: str
    size: int
    status: str
    reason: str | None
    created: str
    policy_digest: str
    provenance: Mapping[str, Any]
    gate: Mapping[str, Any]
    # Every reviewer decision on this version, oldest first: {"action", "by", "time",
    # "reason"} (approve, reject, retire, activate, ...). Append-only.
    decisions: tuple[Mapping[str, Any], ...] = ()
    # An Ed25519 signature over the version record (see signing.py), or None.
    signature: Mapping[str, Any] | None = None

    def with_decision(self, decision: Mapping[str, Any], **changes: Any) -> VersionEntry:
        return self._replace(decisions=(*self.decisions, MappingProxyType(dict(decision))),
                             **changes)

    def as_dict(self) -> dict[str, Any]:
        raw: dict[str, Any] = {
            "version": self.version,
            "sha256": self.sha256,
            "size": self.size,
            "status": self.status,
            "reason": self.reason,
            "created": self.created,
            "policy_digest": self.policy_digest,
            "provenance": dict(self.provenance),
            "gate": dict(self.gate),
        }
        # Written only when present: a manifest without decisions reads as it always did.
        if self.decisions:
            raw["decisions"] = [dict(d) for d in self.decisions]
        if self.signature is not None:
            raw["signature"] = dict(self.signature)
        return raw


_NO_VERSIONS: Mapping[int, VersionEntry] = MappingProxyType({})


class Manifest(NamedTuple):
    name: str
    current: int | None = None
    versions: Mapping[int, VersionEntry] = _NO_VERSIONS  # read-only: one shared empty map
    history: tuple[Mapping[str, Any], ...] = ()
    # The signed decision records as stored, oldest first (chain.py); append-only.
    chain: tuple[Mapping[str, Any], ...] = ()
    # The tool this name serves, when the name is an alias (it then has no versions).
    alias: str | None = None

    @property
    def next_version(self) -> int:
        return max(self.versions, default=0) + 1

    def with_version(self, entry: VersionEntry) -> Manifest:
        versions = dict(self.versions)
        versions[entry.version] = entry
        return self._replace(versions=MappingProxyType(versions))

    def with_pointer(self, to: int | None, action: str, **extra: Any) -> Manifest:
        event = {"time": utc_now(), "action": action, "from": self.current, "to": to, **extra}
        return self._replace(current=to, history=(*self.history, event))

    def with_chain(self, records: tuple[Mapping[str, Any], ...]) -> Manifest:
        return self._replace(chain=tuple(MappingProxyType(dict(r)) for r in records))

    def as_dict(self) -> dict[str, Any]:
        raw: dict[str, Any] = {
            "format": MANIFEST_FORMAT,
            "name": self.name,
            "current": self.current,
            "versions": [self.versions[v].as_dict() for v in sorted(self.versions)],
            "history": [dict(event) for event in self.history],
        }
        if self.chain:  # written only when present: a manifest without one reads as before
            raw["chain"] = [_plain(record) for record in self.chain]
        if self.alias is not None:
            raw["alias"] = self.alias
        return raw


def _plain(value: Any) -> Any:
    """A stored record with its read-only mappings turned back into dicts (for json)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def dump_manifest(manifest: Manifest) -> bytes:
    """One version (and one pointer move) per line: readable in a diff, and encoded by the
    C JSON encoder (`indent` would switch to the pure-Python one, 10x slower)."""
    raw = manifest.as_dict()

    def block(lines: list[str]) -> str:
        return "[\n    " + ",\n    ".join(lines) + "\n  ]" if lines else "[]"

    head = ",\n".join(
        f"  {_encode(key)}: {_encode(raw[key])}"
        for key in ("format", "name", "current", "alias") if key in raw
    )
    versions = [_encode_entry(manifest.versions[v]) for v in sorted(manifest.versions)]
    history = [_encode(event) for event in raw["history"]]
    chain = (f",\n  \"chain\": {block([_encode(r) for r in raw['chain']])}"
             if "chain" in raw else "")
    text = (
        f"{{\n{head},\n  \"versions\": {block(versions)},\n"
        f"  \"history\": {block(history)}{chain}\n}}\n"
    )
    return text.encode("utf-8")


def _encode(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True)


# Entries are immutable and a manifest is rewritten whole on every change, so each entry's
# line is encoded once and reused (keyed by identity; the entry is kept to pin the id).
_ENTRY_LINES: dict[int, tuple[VersionEntry, str]] = {}


def _encode_entry(entry: VersionEntry) -> str:
    cached = _ENTRY_LINES.get(id(entry))
    if cached is not None and cached[0] is entry:
        return cached[1]
    line = _encode(entry.as_dict())
    if len(_ENTRY_LINES) > 20_000:
        _ENTRY_LINES.clear()
    _ENTRY_LINES[id(entry)] = (entry, line)
    return line


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ManifestError(message)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _parse_entry(raw: Any, where: str) -> VersionEntry:
    _require(isinstance(raw, dict), f"{where} must be an object")
    version = raw.get("version")
    _require(version_in_range(version), f"{where}.version must be an int in 1..{MAX_VERSION}")
    sha = raw.get("sha256")
    _require(isinstance(sha, str) and bool(_SHA256.fullmatch(sha)), f"{where}.sha256 is invalid")
    size = raw.get("size")
    _require(_is_int(size) and size >= 0, f"{where}.size must be a non-negative int")
    status = raw.get("status")
    _require(status in STATUSES, f"{where}.status must be one of {sorted(STATUSES)}")
    reason = raw.get("reason")
    _require(reason is None or isinstance(reason, str), f"{where}.reason must be a string")
    _require(status == APPROVED or bool(reason), f"{where}: a {status} version needs a reason")
    for key in ("created", "policy_digest"):
        _require(isinstance(raw.get(key), str), f"{where}.{key} must be a string")
    for key in ("provenance", "gate"):
        _require(isinstance(raw.get(key), dict), f"{where}.{key} must be an object")
    decisions = raw.get("decisions", [])
    _require(isinstance(decisions, list) and all(isinstance(d, dict) for d in decisions),
             f"{where}.decisions must be a list of objects")
    signature = raw.get("signature")
    _require(signature is None or isinstance(signature, dict),
             f"{where}.signature must be an object")
    return VersionEntry(
        version=version,
        sha256=sha,
        size=size,
        status=status,
        reason=reason,
        created=raw["created"],
        policy_digest=raw["policy_digest"],
        provenance=MappingProxyType(raw["provenance"]),
        gate=MappingProxyType(raw["gate"]),
        decisions=tuple(MappingProxyType(d) for d in decisions),
        signature=MappingProxyType(signature) if signature is not None else None,
    )


def parse_manifest(data: bytes, expected_name: str) -> Manifest:
    if len(data) > MAX_MANIFEST_BYTES:
        raise ManifestError(f"it is larger than the limit of {MAX_MANIFEST_BYTES} bytes")
    try:
        raw = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        # ValueError covers bad UTF-8, bad JSON and an integer past Python's digit limit;
        # RecursionError is deep nesting. All are an untrusted manifest, never a crash.
        raise ManifestError(f"not valid JSON: {str(exc)[:200]}") from exc
    _require(isinstance(raw, dict), "the manifest must be a JSON object")
    fmt = raw.get("format")
    _require(_is_int(fmt) and fmt == MANIFEST_FORMAT, f"unknown format {fmt!r}")
    _require(
        raw.get("name") == expected_name,
        f"names tool {raw.get('name')!r} but lives in folder {expected_name!r}",
    )
    raw_versions = raw.get("versions")
    _require(isinstance(raw_versions, list), "versions must be a list")
    versions: dict[int, VersionEntry] = {}
    for i, item in enumerate(raw_versions):
        entry = _parse_entry(item, f"versions[{i}]")
        _require(entry.version not in versions, f"version {entry.version} is listed twice")
        versions[entry.version] = entry
    current = raw.get("current")
    _require(
        current is None or (_is_int(current) and current in versions),
        f"current {current!r} is not a listed version",
    )
    history = raw.get("history", [])
    _require(
        isinstance(history, list) and all(isinstance(e, dict) for e in history),
        "history must be a list of objects",
    )
    chain = raw.get("chain", [])
    _require(
        isinstance(chain, list) and all(isinstance(r, dict) for r in chain),
        "chain must be a list of objects",
    )
    alias = raw.get("alias")
    if alias is not None:
        _require(isinstance(alias, str) and tool_name_problem(alias) is None
                 and alias != expected_name, "alias must name another tool")
        _require(not versions and current is None, "an alias has no versions of its own")
    return Manifest(
        name=expected_name,
        current=current,
        versions=MappingProxyType(versions),
        history=tuple(MappingProxyType(e) for e in history),
        chain=tuple(MappingProxyType(r) for r in chain),
        alias=alias,
    )
