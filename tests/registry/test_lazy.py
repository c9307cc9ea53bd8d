"""A lazily opened registry (what `call`, `ensure` and the servers use): a tool is read when it
is first asked for and only the versions its pointer needs are checked, when they are needed,
exactly as strictly as an eager open checks them all."""

from __future__ import annotations

from pathlib import Path

import pytest
from structlog.testing import capture_logs

from dyntools.errors import VersionUnusable
from dyntools.registry import APPROVED, QUARANTINED, Registry, checks
from dyntools.registry.signing import generate_keypair, load_signing_key, load_trusted_keys
from tests.support.cli import dyntools as _dt
from tests.support.waiting import wait_for

from .helpers import tamper, tool_source


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every version file the open rule reads, as (tool, version), in order."""
    seen: list[tuple[str, int]] = []
    real = checks.check_version

    def counting(path: Path, entry, policy):  # type: ignore[no-untyped-def]
        seen.append((path.parent.name, entry.version))
        return real(path, entry, policy)

    monkeypatch.setattr(checks, "check_version", counting)
    return seen


def _fill(registry: Registry, tools: int = 3, versions: int = 4) -> None:
    for t in range(tools):
        name = f"tool_{t}"
        for v in range(versions):
            registry.add_version(name, tool_source(name=name, answer=str(v)), {})


def test_opening_reads_no_version_and_a_call_reads_only_the_current_one(
    registry: Registry, counted: list[tuple[str, int]]
) -> None:
    _fill(registry)
    lazy = Registry.open(registry.root, registry.policy, lazy=True)
    assert counted == []
    assert lazy.names() == ["tool_0", "tool_1", "tool_2"]
    assert lazy.current("tool_1").version == 4
    assert counted == [("tool_1", 4)]
    assert lazy.verified_source("tool_1", 4) == tool_source(name="tool_1", answer="3")
    assert counted == [("tool_1", 4)]  # loading hashes the bytes again; no second gate run


def test_an_edited_current_version_is_quarantined_when_first_used_and_never_served(
    registry: Registry, counted: list[tuple[str, int]]
) -> None:
    _fill(registry, tools=1, versions=3)
    tamper(registry.path_of("tool_0", 3))
    lazy = Registry.open(registry.root, registry.policy, lazy=True)
    with capture_logs() as logs:
        current = lazy.current("tool_0")
    assert current is not None and current.version == 2  # the newest good one below
    assert counted == [("tool_0", 3), ("tool_0", 2)]
    record = lazy.get("tool_0", 3)
    assert record.status == QUARANTINED and record.reason_code == "hash_mismatch"
    with pytest.raises(VersionUnusable):
        lazy.verified_source("tool_0", 3)
    quarantined = [e for e in logs if e["event"] == "registry.quarantined"]
    assert len(quarantined) == 1 and quarantined[0]["log_level"] == "warning"
    assert quarantined[0]["version"] == 3 and quarantined[0]["reason_code"] == "hash_mismatch"
    assert quarantined[0]["path"] == str(registry.path_of("tool_0", 3))
    # One warning line: the fallback it causes goes to the audit trail at info.
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["registry.quarantined"]
    assert [e["event"] for e in logs if e["log_level"] == "info"] == ["registry.pointer_fallback"]


def test_an_edit_after_the_check_is_caught_when_the_version_is_loaded(
    registry: Registry,
) -> None:
    _fill(registry, tools=1, versions=2)
    lazy = Registry.open(registry.root, registry.policy, lazy=True)
    assert lazy.current("tool_0").version == 2
    tamper(registry.path_of("tool_0", 2))
    with capture_logs() as logs, pytest.raises(VersionUnusable) as raised:
        lazy.verified_source("tool_0", 2)
    assert raised.value.details["reason_code"] == "hash_mismatch"
    assert lazy.current("tool_0").version == 1
    assert any(e["event"] == "registry.quarantined" and e["version"] == 2
               and e["log_level"] == "error" for e in logs)


def test_reading_everything_checks_everything_and_agrees_with_an_eager_open(
    registry: Registry, counted: list[tuple[str, int]]
) -> None:
    _fill(registry)
    registry.add_version("tool_0", tool_source(name="tool_0", answer="p"), {},
                         status="pending", reason="awaiting approval")
    registry.decide("tool_1", 2, "retire", reason="superseded", by="alice")
    registry.rollback("tool_2", 2)
    tamper(registry.path_of("tool_0", 1))  # not current: serving never reads it
    tamper(registry.path_of("tool_2", 2))  # current after the rollback: falls back to v1
    (registry.root / "tool_1" / "v9.py").write_bytes(tool_source(name="tool_1"))
    (registry.root / "Not-A-Tool").mkdir()
    lazy = Registry.open(registry.root, registry.policy, lazy=True)
    assert lazy.current("tool_0").version == 4
    assert ("tool_0", 1) not in counted
    assert [(r.name, r.version) for r in lazy.quarantined()] == [("tool_0", 1), ("tool_2", 2)]
    counted.clear()
    eager = Registry.open(registry.root, registry.policy)
    assert len(counted) == 3 * 4 + 1 - 1  # every version, the retired one excepted
    assert [s.as_dict() for s in lazy.tools()] == [s.as_dict() for s in eager.tools()]
    assert lazy.unrecorded() == eager.unrecorded()
    assert lazy.current("tool_2").version == eager.current("tool_2").version == 1


def test_signatures_are_checked_for_what_is_served(registry: Registry, tmp_path: Path) -> None:
    private, public, _ = generate_keypair(tmp_path / "alice.key")
    signer = load_signing_key(private)
    registry.add_version("tool_0", tool_source(name="tool_0", answer="1"), {},
                         decision={"action": "ensure", "by": "alice"}, signer=signer)
    registry.add_version("tool_0", tool_source(name="tool_0", answer="2"), {})  # unsigned
    trusted = load_trusted_keys(public)
    lazy = Registry.open(registry.root, registry.policy, lazy=True, trusted_keys=trusted)
    # v2 was made current by no signed decision: nothing is served (no fallback to v1, which
    # the chain no longer says is current either), and the refusal says both
    assert lazy.current("tool_0") is None
    refusal = lazy.refusal("tool_0")
    assert refusal is not None and refusal.reason == "chain_mismatch"
    assert "unsigned" in refusal.message
    assert lazy.get("tool_0", 2).reason_code == "unsigned"
    assert lazy.get("tool_0", 1).status == APPROVED
    # a signed decision settles it: the chain's v1 again
    lazy.activate("tool_0", 1, signer=signer)
    assert lazy.current("tool_0").version == 1


def test_a_tool_another_process_adds_is_found(registry: Registry) -> None:
    lazy = Registry.open(registry.root, registry.policy, lazy=True)
    assert lazy.current("tool_0") is None
    _fill(registry, tools=1, versions=1)
    lazy.refresh("tool_0")
    assert lazy.current("tool_0").version == 1


def test_watch_on_a_lazy_registry_quarantines_an_edit_of_what_it_serves(
    registry: Registry,
) -> None:
    _fill(registry, tools=2, versions=2)
    lazy = Registry.open(registry.root, registry.policy, lazy=True)
    assert lazy.current("tool_0").version == 2
    watcher = lazy.watch()
    try:
        tamper(registry.path_of("tool_0", 2))
        assert wait_for(lambda: lazy.current("tool_0").version == 1)
        assert lazy.get("tool_0", 2).reason_code == "hash_mismatch"
        tamper(registry.path_of("tool_1", 2))  # never read: found when first asked for
        assert lazy.current("tool_1").version == 1
    finally:
        watcher.stop()



def test_call_through_the_cli_serves_the_good_version_and_says_why(registry: Registry) -> None:
    _fill(registry, tools=2, versions=2)
    tamper(registry.path_of("tool_0", 2))
    called = _dt("call", "tool_0", "--params", "{}", "--registry", str(registry.root))
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == '{"answer": "0"}'
    lines = [line for line in called.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, called.stderr
    assert '"registry.quarantined"' in lines[0] and '"hash_mismatch"' in lines[0]
    tamper(registry.path_of("tool_0", 1))
    refused = _dt("call", "tool_0", "--params", "{}", "--registry", str(registry.root))
    assert refused.returncode == 16 and refused.stdout == ""
    assert '"registry.quarantined"' in refused.stderr
    assert "no usable version" in refused.stderr
    other = _dt("call", "tool_1", "--params", "{}", "--registry", str(registry.root))
    assert other.returncode == 0 and other.stderr == ""  # tool_0's problems are not tool_1's


def test_a_write_to_a_tool_not_read_yet_reports_its_old_problems_as_a_first_use(
    registry: Registry,
) -> None:
    _fill(registry, tools=1, versions=2)
    tamper(registry.path_of("tool_0", 1))
    (registry.root / "tool_0" / "notes.txt").write_text("hi\n")
    lazy = Registry.open(registry.root, registry.policy, lazy=True)
    with capture_logs() as logs:
        record = lazy.add_version("tool_0", tool_source(name="tool_0", answer="3"), {})
    assert record.version == 3 and lazy.current("tool_0").version == 3
    levels = {e["event"]: e["log_level"] for e in logs if e["event"].startswith("registry.")}
    assert levels == {"registry.unrecorded": "info", "registry.version_added": "info"}
    assert lazy.get("tool_0", 1).reason_code == "hash_mismatch"  # found when read
