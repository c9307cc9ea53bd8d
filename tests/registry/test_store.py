"""Persisting versions: files, manifest, pointer, statuses, and what is refused."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from dyntools.errors import (
    GateRejected,
    RegistryError,
    UnknownTool,
    UnknownVersion,
    UsageError,
    VersionUnusable,
)
from dyntools.gate import check_source
from dyntools.gate.findings import sha256_hex
from dyntools.registry import APPROVED, QUARANTINED, REJECTED, Registry

from .helpers import snapshot, tamper, tool_source


def test_add_version_persists_file_manifest_and_pointer(registry: Registry) -> None:
    source = tool_source(answer="one")
    record = registry.add_version(
        "echo_tool", source,
        {"generator": "offline", "model": "template", "attempts": 1, "prompt_sha256": "ab"},
    )
    assert (record.version, record.status, record.usable) == (1, APPROVED, True)
    assert record.path == registry.root / "echo_tool" / "v1.py"
    assert record.path.read_bytes() == source
    assert stat.S_IMODE(record.path.stat().st_mode) == 0o444
    assert record.module_name == "dyntools_tools.echo_tool.v1"
    manifest = json.loads((registry.root / "echo_tool" / "manifest.json").read_text())
    assert manifest["current"] == 1
    [entry] = manifest["versions"]
    assert entry["sha256"] == sha256_hex(source)
    assert entry["policy_digest"] == registry.policy.digest
    assert entry["gate"]["accepted"] is True
    assert entry["provenance"]["generator"] == "offline"
    assert entry["provenance"]["model"] == "template"
    assert entry["provenance"]["attempts"] == 1
    assert entry["provenance"]["prompt_sha256"] == "ab"
    assert entry["provenance"]["time"]
    assert registry.current("echo_tool") == record


def test_versions_count_up_and_the_pointer_follows(registry: Registry) -> None:
    for i in range(1, 4):
        assert registry.add_version("echo_tool", tool_source(answer=str(i)), {}).version == i
    assert registry.current("echo_tool").version == 3
    assert [r.version for r in registry.versions("echo_tool")] == [1, 2, 3]


def test_add_without_activate_keeps_the_pointer(registry: Registry) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    staged = registry.add_version("echo_tool", tool_source(answer="2"), {}, activate=False)
    assert staged.usable
    assert registry.current("echo_tool").version == 1
    registry.activate("echo_tool", 2)
    assert registry.current("echo_tool").version == 2


def test_rejected_version_is_recorded_but_never_current(registry: Registry) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    rejected = registry.add_version(
        "echo_tool", tool_source(answer="2"), {}, status=REJECTED,
        reason="verification_failed: example 1 returned {'answer': '2'}",
    )
    assert rejected.status == REJECTED and not rejected.usable
    assert registry.current("echo_tool").version == 1
    with pytest.raises(VersionUnusable):
        registry.activate("echo_tool", 2)
    assert Registry.open(registry.root, registry.policy).get("echo_tool", 2).status == REJECTED
    with pytest.raises(UsageError):
        registry.add_version("echo_tool", tool_source(answer="3"), {}, status=REJECTED)


def test_rollback_moves_the_pointer_back_and_keeps_history(registry: Registry) -> None:
    for i in (1, 2, 3):
        registry.add_version("echo_tool", tool_source(answer=str(i)), {})
    registry.rollback("echo_tool", 1)
    reopened = Registry.open(registry.root, registry.policy)
    assert reopened.current("echo_tool").version == 1
    assert [r.version for r in reopened.versions("echo_tool")] == [1, 2, 3]
    assert [e["action"] for e in reopened.tool("echo_tool").history][-1] == "rollback"
    with pytest.raises(UsageError, match="not older"):
        reopened.rollback("echo_tool", 3)
    with pytest.raises(UnknownVersion):
        reopened.rollback("echo_tool", 9)


def test_gate_rejection_writes_nothing(registry: Registry) -> None:
    before = snapshot(registry.root)
    bad = tool_source().replace(b"def run(params):", b"import os\n\ndef run(params):")
    with pytest.raises(GateRejected) as caught:
        registry.add_version("echo_tool", bad, {})
    assert caught.value.details["findings"]
    assert snapshot(registry.root) == before


def test_source_must_declare_the_tool_name(registry: Registry) -> None:
    before = snapshot(registry.root)
    with pytest.raises(UsageError, match="NAME"):
        registry.add_version("other_tool", tool_source(name="echo_tool"), {})
    assert snapshot(registry.root) == before


def test_caller_gate_report_is_reused_only_for_the_same_bytes(registry: Registry) -> None:
    source = tool_source()
    report = check_source(source, registry.policy)
    assert registry.add_version("echo_tool", source, {}, report=report).usable
    bad = tool_source(answer="2").replace(b"def run(params):", b"import os\n\ndef run(params):")
    with pytest.raises(GateRejected):  # a report for other bytes is not trusted
        registry.add_version("echo_tool", bad, {}, report=report)


def test_provenance_must_be_json(registry: Registry) -> None:
    with pytest.raises(UsageError, match="JSON"):
        registry.add_version("echo_tool", tool_source(), {"when": object()})
    assert not (registry.root / "echo_tool").exists()


def test_unknown_tool_and_version(registry: Registry) -> None:
    assert registry.current("nope") is None
    assert registry.versions("nope") == []
    with pytest.raises(UnknownTool):
        registry.tool("nope")
    registry.add_version("echo_tool", tool_source(), {})
    with pytest.raises(UnknownVersion, match="versions: 1"):
        registry.get("echo_tool", 2)


def test_orphan_version_file_is_untrusted_and_never_overwritten(registry: Registry) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    orphan = registry.root / "echo_tool" / "v2.py"
    orphan.write_bytes(tool_source(answer="dropped"))
    reopened = Registry.open(registry.root, registry.policy)
    assert [u.version for u in reopened.unrecorded()] == [2]
    assert reopened.current("echo_tool").version == 1
    record = reopened.add_version("echo_tool", tool_source(answer="3"), {})
    assert record.version == 3
    assert orphan.read_bytes() == tool_source(answer="dropped")


def test_approve_records_a_dropped_in_file(registry: Registry) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    dropped = registry.root / "echo_tool" / "v2.py"
    dropped.write_bytes(tool_source(answer="by hand"))
    record = registry.approve("echo_tool", 2)
    assert record.usable and record.provenance["generator"] == "manual"
    assert stat.S_IMODE(dropped.stat().st_mode) == 0o444
    assert Registry.open(registry.root, registry.policy).current("echo_tool").version == 2
    with pytest.raises(UsageError, match="already recorded"):
        registry.approve("echo_tool", 2)


def test_approve_refuses_an_unsafe_dropped_in_file(registry: Registry) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    dropped = registry.root / "echo_tool" / "v2.py"
    dropped.write_bytes(tool_source().replace(b"def run", b"import os\n\ndef run"))
    with pytest.raises(GateRejected):
        registry.approve("echo_tool", 2)
    assert registry.current("echo_tool").version == 1


def test_invalid_manifest_quarantines_the_tool_and_blocks_writes(registry: Registry) -> None:
    registry.add_version("echo_tool", tool_source(), {})
    manifest = registry.root / "echo_tool" / "manifest.json"
    manifest.write_text(manifest.read_text()[:-40])
    reopened = Registry.open(registry.root, registry.policy)
    assert reopened.current("echo_tool") is None
    assert reopened.tool("echo_tool").error
    assert reopened.broken_tools()
    with pytest.raises(RegistryError, match="invalid"):
        reopened.add_version("echo_tool", tool_source(answer="2"), {})


def test_manifest_cannot_point_outside_the_folder(registry: Registry) -> None:
    registry.add_version("echo_tool", tool_source(), {})
    path = registry.root / "echo_tool" / "manifest.json"
    data = json.loads(path.read_text())
    data["versions"][0]["version"] = "../../etc/passwd"
    path.write_text(json.dumps(data))
    assert Registry.open(registry.root, registry.policy).tool("echo_tool").error


def test_symlinked_version_file_is_quarantined(registry: Registry, tmp_path: Path) -> None:
    record = registry.add_version("echo_tool", tool_source(), {})
    elsewhere = tmp_path / "same.py"
    elsewhere.write_bytes(record.path.read_bytes())
    os.chmod(record.path, 0o644)
    record.path.unlink()
    record.path.symlink_to(elsewhere)
    reopened = Registry.open(registry.root, registry.policy)
    assert reopened.get("echo_tool", 1).status == QUARANTINED
    assert reopened.get("echo_tool", 1).reason_code == "not_a_regular_file"


def test_verified_source_catches_an_edit_after_open(registry: Registry) -> None:
    record = registry.add_version("echo_tool", tool_source(), {})
    assert registry.verified_source("echo_tool", 1) == tool_source()
    tamper(record.path)
    with pytest.raises(VersionUnusable):
        registry.verified_source("echo_tool", 1)
    assert registry.get("echo_tool", 1).status == QUARANTINED
    assert registry.current("echo_tool") is None


def test_verified_source_refuses_bytes_of_another_record_than_the_callers(
        registry: Registry) -> None:
    record = registry.add_version("echo_tool", tool_source(), {})
    assert registry.verified_source("echo_tool", 1, sha256=record.sha256) == tool_source()
    with pytest.raises(VersionUnusable, match="rewritten in the manifest"):
        registry.verified_source("echo_tool", 1, sha256="0" * 64)
    assert registry.get("echo_tool", 1).status != QUARANTINED  # the caller's record is stale


def test_reviewer_quarantine_is_persisted(registry: Registry) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    registry.add_version("echo_tool", tool_source(answer="2"), {})
    registry.quarantine("echo_tool", 2, "leaks the input in its output")
    reopened = Registry.open(registry.root, registry.policy)
    assert reopened.get("echo_tool", 2).status == QUARANTINED
    assert reopened.get("echo_tool", 2).reason_code == "quarantined_by_reviewer"
    assert reopened.current("echo_tool").version == 1


def test_stale_temp_files_are_ignored_then_cleaned(registry: Registry) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    leftover = registry.root / "echo_tool" / ".tmp-v2.py-99999-deadbeef"
    leftover.write_bytes(b"partial")
    reopened = Registry.open(registry.root, registry.policy)
    assert reopened.unrecorded() == [] and not reopened.quarantined()
    reopened.add_version("echo_tool", tool_source(answer="2"), {})
    assert not leftover.exists()


def test_readers_do_not_create_a_missing_registry(tmp_path: Path, policy) -> None:
    missing = tmp_path / "none"
    assert Registry.open(missing, policy, create=False).names() == []
    assert not missing.exists()


def test_registry_root_may_be_a_symlink(registry: Registry, tmp_path: Path) -> None:
    registry.add_version("echo_tool", tool_source(), {})
    link = tmp_path / "link"
    link.symlink_to(registry.root)
    assert Registry.open(link, registry.policy).current("echo_tool").version == 1


def test_symlinked_tool_folder_is_never_followed(registry: Registry, tmp_path: Path) -> None:
    registry.add_version("echo_tool", tool_source(), {})
    (registry.root / "linked_tool").symlink_to(registry.root / "echo_tool")
    reopened = Registry.open(registry.root, registry.policy)
    assert reopened.names() == ["echo_tool"]
    assert [u.name for u in reopened.unrecorded()] == ["linked_tool"]
    with pytest.raises(RegistryError, match="not a real folder"):
        reopened.add_version("linked_tool", tool_source(name="linked_tool"), {})
