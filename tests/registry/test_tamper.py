"""Tamper evidence: an edited file, a tightened allow-list, and the same while watching."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from dyntools.registry import APPROVED, QUARANTINED, Registry
from tests.support.waiting import wait_for

from .helpers import allowlist_without_module, tamper, tool_source


def _three_versions(registry: Registry) -> None:
    for i in (1, 2, 3):
        registry.add_version("echo_tool", tool_source(answer=str(i)), {"generator": "test"})


def test_edited_byte_is_quarantined_on_open_and_the_pointer_falls_back(
    registry: Registry,
) -> None:
    _three_versions(registry)
    tamper(registry.path_of("echo_tool", 3))
    with capture_logs() as logs:
        reopened = Registry.open(registry.root, registry.policy)
    record = reopened.get("echo_tool", 3)
    assert record.status == QUARANTINED and record.reason_code == "hash_mismatch"
    assert "changed on disk" in (record.reason or "")
    assert reopened.current("echo_tool").version == 2
    assert reopened.tool("echo_tool").recorded_current == 3
    assert [r.version for r in reopened.quarantined()] == [3]
    # Opening logs one warning for every problem found (issue 10: quiet by default); the
    # per-version events go to the audit trail at info.
    warnings = [e for e in logs if e["log_level"] == "warning"]
    assert [e["event"] for e in warnings] == ["registry.problems"]
    assert [p.split(":")[:2] for p in warnings[0]["problems"]] == [["echo_tool v3",
                                                                    " hash_mismatch"]]
    assert "was changed on disk" in warnings[0]["problems"][0]


def test_fallback_never_moves_the_pointer_forward(registry: Registry) -> None:
    _three_versions(registry)
    registry.rollback("echo_tool", 1)
    tamper(registry.path_of("echo_tool", 1))
    assert Registry.open(registry.root, registry.policy).current("echo_tool") is None


def test_deleted_version_file_is_quarantined(registry: Registry) -> None:
    _three_versions(registry)
    os.unlink(registry.path_of("echo_tool", 3))
    record = Registry.open(registry.root, registry.policy).get("echo_tool", 3)
    assert record.reason_code == "file_missing"


def test_version_approved_under_an_older_allow_list_is_quarantined(
    registry: Registry, tmp_path: Path
) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    registry.add_version("echo_tool", tool_source(answer="2", extra_import="json"), {})
    tighter = allowlist_without_module(registry.policy, "json", tmp_path / "allowlist.toml")
    assert tighter.digest != registry.policy.digest
    reopened = Registry.open(registry.root, tighter)
    record = reopened.get("echo_tool", 2)
    assert record.status == QUARANTINED and record.reason_code == "gate_rejected"
    assert record.policy_digest == registry.policy.digest  # what it was approved under
    assert {f["code"] for f in record.findings} == {"DT201"}
    assert reopened.get("echo_tool", 1).status == APPROVED
    assert reopened.current("echo_tool").version == 1


@pytest.fixture
def watched(registry: Registry):
    _three_versions(registry)
    watcher = registry.watch()
    try:
        yield registry
    finally:
        watcher.stop()


def test_watch_quarantines_an_edit_live(watched: Registry) -> None:
    tamper(watched.path_of("echo_tool", 3))
    assert wait_for(lambda: watched.get("echo_tool", 3).status == QUARANTINED)
    assert watched.get("echo_tool", 3).reason_code == "hash_mismatch"
    assert watched.current("echo_tool").version == 2


def test_watch_sees_an_atomic_save_over_a_version(watched: Registry) -> None:
    target = watched.path_of("echo_tool", 2)
    temp = target.with_name("edited.tmp")
    temp.write_bytes(tool_source(answer="evil"))
    os.replace(temp, target)  # the editor's save: arrives as a moved event
    assert wait_for(lambda: watched.get("echo_tool", 2).status == QUARANTINED)


def test_watch_reports_a_deleted_file(watched: Registry) -> None:
    with capture_logs() as logs:
        os.unlink(watched.path_of("echo_tool", 1))
        assert wait_for(lambda: watched.get("echo_tool", 1).reason_code == "file_missing")
    assert any(e["event"] == "registry.quarantined" and e["version"] == 1 for e in logs)


def test_watch_never_trusts_a_dropped_in_file(watched: Registry) -> None:
    (watched.root / "echo_tool" / "v4.py").write_bytes(tool_source(answer="4"))
    assert wait_for(lambda: any(u.version == 4 for u in watched.unrecorded()))
    assert watched.current("echo_tool").version == 3
    watched.approve("echo_tool", 4)
    assert watched.current("echo_tool").version == 4


def test_watch_picks_up_another_writers_version(watched: Registry) -> None:
    other = Registry.open(watched.root, watched.policy)
    other.add_version("echo_tool", tool_source(answer="4"), {})
    assert wait_for(lambda: getattr(watched.current("echo_tool"), "version", None) == 4)
