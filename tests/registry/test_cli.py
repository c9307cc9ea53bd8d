"""The registry commands through the real CLI (CliRunner), and `watch` as a real subprocess."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from dyntools.cli import main
from dyntools.registry import Registry

from .helpers import allowlist_without_module, tamper, tool_source


@pytest.fixture
def filled(registry: Registry) -> Registry:
    registry.add_version("echo_tool", tool_source(answer="1"), {"generator": "offline"})
    registry.add_version("echo_tool", tool_source(answer="2", extra_import="json"),
                         {"generator": "offline"})
    registry.add_version("other_tool", tool_source(name="other_tool"), {"generator": "file"})
    return registry


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def test_list(filled: Registry) -> None:
    result = run("list", "--registry", str(filled.root))
    assert result.exit_code == 0
    assert "echo_tool" in result.stdout and "v2" in result.stdout
    as_json = json.loads(run("list", "--registry", str(filled.root), "--json").stdout)
    assert {t["name"]: t["current"] for t in as_json["tools"]} == {"echo_tool": 2,
                                                                   "other_tool": 1}


def test_registry_location_comes_from_the_environment(filled: Registry) -> None:
    result = run("list", "--json", env={"DYNTOOLS_REGISTRY": str(filled.root)})
    assert [t["name"] for t in json.loads(result.stdout)["tools"]] == ["echo_tool", "other_tool"]


def test_show_current_and_a_given_version(filled: Registry) -> None:
    result = run("show", "echo_tool", "--registry", str(filled.root))
    assert result.exit_code == 0
    assert "# echo_tool v2 (current): approved" in result.stdout
    assert "generator=offline" in result.stdout
    assert tool_source(answer="2", extra_import="json").decode() in result.stdout
    shown = json.loads(run("show", "echo_tool", "--version", "1", "--json",
                           "--registry", str(filled.root)).stdout)
    assert shown["version"] == 1 and shown["source"] == tool_source(answer="1").decode()
    assert shown["gate"]["accepted"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "no_such_tool"), "unknown tool"),
        (("show", "echo_tool", "--version", "7"), "no version 7"),
        (("show", "../echo_tool"), "snake_case"),
        (("diff", "echo_tool", "1", "9"), "no version 9"),
        (("rollback", "echo_tool", "9"), "no version 9"),
        (("rollback", "Echo.Tool", "1"), "snake_case"),
        (("approve", "echo_tool"), "either VERSION"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(filled: Registry, args, message) -> None:
    result = run(*args, "--registry", str(filled.root))
    assert result.exit_code == 2
    assert message in result.stderr


def test_bad_name_touches_no_file(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    for command in (["show", "a/b"], ["approve", "a.b", "1"], ["rollback", "..", "1"]):
        assert run(*command, "--registry", str(root)).exit_code == 2
    assert not root.exists()


def test_diff(filled: Registry) -> None:
    result = run("diff", "echo_tool", "1", "2", "--registry", str(filled.root))
    assert result.exit_code == 0
    assert "+import json" in result.stdout
    assert '-    return {"answer": "1"}' in result.stdout


def test_review_clean_then_tampered(filled: Registry) -> None:
    clean = run("review", "--registry", str(filled.root))
    assert clean.exit_code == 0, clean.stdout
    assert "all versions check out" in clean.stdout
    assert "imports added: json" in clean.stdout
    tamper(filled.path_of("echo_tool", 2))
    result = run("review", "--registry", str(filled.root))
    assert result.exit_code == 1
    assert "QUARANTINED" in result.stdout and "hash_mismatch" in result.stdout
    assert "current v1; the manifest says v2" in result.stdout
    as_json = json.loads(run("review", "--json", "--registry", str(filled.root)).stdout)
    assert as_json["needs_attention"] and as_json["summary"]["quarantined"] == 1
    sarif = json.loads(run("review", "--format", "sarif", "--registry", str(filled.root)).stdout)
    assert sarif["version"] == "2.1.0"
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["registry/hash_mismatch"]


def test_review_sarif_carries_gate_findings_under_a_tighter_allow_list(
    filled: Registry, tmp_path: Path
) -> None:
    tighter = tmp_path / "tight.toml"
    allowlist_without_module(filled.policy, "json", tighter)
    result = run("review", "--format", "sarif", "--allowlist", str(tighter),
                 "--registry", str(filled.root))
    assert result.exit_code == 1
    codes = {r["ruleId"] for r in json.loads(result.stdout)["runs"][0]["results"]}
    assert codes == {"DT201"}


def test_approve_a_dropped_in_file_and_a_file_path(filled: Registry, tmp_path: Path) -> None:
    (filled.root / "echo_tool" / "v3.py").write_bytes(tool_source(answer="3"))
    assert run("review", "--registry", str(filled.root)).exit_code == 1  # unrecorded
    result = run("approve", "echo_tool", "3", "--registry", str(filled.root))
    assert result.exit_code == 0, result.stderr
    assert "approved echo_tool v3" in result.stdout
    outside = tmp_path / "mine.py"
    outside.write_bytes(tool_source(answer="4"))
    added = json.loads(run("approve", "echo_tool", "--file", str(outside), "--json",
                           "--registry", str(filled.root)).stdout)
    assert added["version"] == 4 and added["provenance"]["generator"] == "manual"
    unsafe = tmp_path / "unsafe.py"
    unsafe.write_bytes(tool_source(answer="5").replace(b"def run", b"import os\n\ndef run"))
    refused = run("approve", "echo_tool", "--file", str(unsafe), "--registry", str(filled.root))
    assert refused.exit_code == 1 and "DT201" in refused.stderr
    assert Registry.open(filled.root, filled.policy).current("echo_tool").version == 4


def test_rollback(filled: Registry) -> None:
    result = run("rollback", "echo_tool", "1", "--registry", str(filled.root))
    assert result.exit_code == 0 and "current is now v1" in result.stdout
    assert Registry.open(filled.root, filled.policy).current("echo_tool").version == 1
    not_older = run("rollback", "other_tool", "1", "--registry", str(filled.root))
    assert not_older.exit_code == 2 and "not older" in not_older.stderr


def test_rollback_to_a_quarantined_version_is_refused(filled: Registry) -> None:
    tamper(filled.path_of("echo_tool", 1))
    result = run("rollback", "echo_tool", "1", "--registry", str(filled.root))
    assert result.exit_code == 1 and "quarantined" in result.stderr
    assert Registry.open(filled.root, filled.policy).current("echo_tool").version == 2


def _read_until(proc: subprocess.Popen, predicate, timeout: float = 10.0) -> list[dict]:
    """Read JSON lines from the process's stdout until one satisfies `predicate`."""
    events: list[dict] = []
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    buffer = b""
    while time.monotonic() < deadline:
        if not selector.select(timeout=0.1):
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            events.append(json.loads(line))
            if predicate(events[-1]):
                return events
    raise AssertionError(f"no matching event; saw {events}")


def test_watch_subprocess_quarantines_an_edit(filled: Registry) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "dyntools", "watch", "--json", "--registry", str(filled.root)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    try:
        _read_until(proc, lambda e: e["event"] == "watching")
        tamper(filled.path_of("echo_tool", 2))
        events = _read_until(
            proc, lambda e: e["event"] == "quarantined" and e["tool"] == "echo_tool")
        assert events[-1]["version"] == "2" and "changed on disk" in events[-1]["detail"]
        (filled.root / "other_tool" / "v2.py").write_bytes(tool_source(name="other_tool"))
        _read_until(proc, lambda e: e["event"] == "unrecorded" and e["tool"] == "other_tool")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert proc.returncode == 0


def test_review_subprocess_exit_code(filled: Registry) -> None:
    command = [sys.executable, "-m", "dyntools", "review", "--registry", str(filled.root)]
    assert subprocess.run(command, check=False, capture_output=True).returncode == 0
    tamper(filled.path_of("other_tool", 1))
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    assert done.returncode == 1 and "hash_mismatch" in done.stdout
