"""A version file with a second name (a hard link) is refused by open, review and watch.

inotify reports only what is done through a watched path, so an edit through a link made
from elsewhere is invisible to `watch`; a version file must therefore have exactly one name.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dyntools.cli import main
from dyntools.errors import UsageError
from dyntools.registry import APPROVED, QUARANTINED, Registry
from dyntools.registry.watch import RegistryWatcher
from tests.support.waiting import wait_for

from .helpers import tool_source
from .test_cli import _read_until


def _two_versions(registry: Registry) -> None:
    for answer in ("1", "2"):
        registry.add_version("echo_tool", tool_source(answer=answer), {"generator": "test"})


def _edit_through(link: Path) -> None:
    os.chmod(link, stat.S_IRUSR | stat.S_IWUSR)
    with open(link, "r+b") as handle:
        handle.seek(5)
        handle.write(b"X")


def test_open_quarantines_a_hard_linked_version(registry: Registry, tmp_path: Path) -> None:
    _two_versions(registry)
    os.link(registry.path_of("echo_tool", 2), tmp_path / "elsewhere.py")
    reopened = Registry.open(registry.root, registry.policy)
    record = reopened.get("echo_tool", 2)
    assert record.status == QUARANTINED and record.reason_code == "hard_linked"
    assert "2 hard links" in (record.reason or "")
    assert reopened.current("echo_tool").version == 1
    # Once the other name is gone and the bytes are what was approved, it is trusted again.
    os.unlink(tmp_path / "elsewhere.py")
    assert Registry.open(registry.root, registry.policy).get("echo_tool", 2).status == APPROVED


def test_review_reports_a_hard_linked_version(registry: Registry, tmp_path: Path) -> None:
    _two_versions(registry)
    os.link(registry.path_of("echo_tool", 1), tmp_path / "elsewhere.py")
    result = CliRunner().invoke(main, ["review", "--registry", str(registry.root)])
    assert result.exit_code == 1
    assert "hard_linked" in result.stdout


def test_watch_sees_a_link_made_from_elsewhere_and_an_edit_through_it(
    registry: Registry, tmp_path: Path
) -> None:
    _two_versions(registry)
    link = tmp_path / "elsewhere.py"
    with RegistryWatcher(registry, sweep_seconds=0.05).start():
        os.link(registry.path_of("echo_tool", 2), link)  # no inotify event in the registry
        assert wait_for(lambda: registry.get("echo_tool", 2).reason_code == "hard_linked")
        assert registry.current("echo_tool").version == 1
        os.unlink(link)
        assert wait_for(lambda: registry.get("echo_tool", 2).status == APPROVED)
        # An edit through a link that is then removed again: the hash still catches it.
        os.link(registry.path_of("echo_tool", 2), link)
        _edit_through(link)
        os.unlink(link)
        assert wait_for(lambda: registry.get("echo_tool", 2).reason_code == "hash_mismatch")


def test_watch_subprocess_reports_a_hard_link(registry: Registry, tmp_path: Path) -> None:
    _two_versions(registry)
    proc = subprocess.Popen(
        [sys.executable, "-m", "dyntools", "watch", "--json", "--registry", str(registry.root)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    try:
        _read_until(proc, lambda e: e["event"] == "watching")
        os.link(registry.path_of("echo_tool", 1), tmp_path / "elsewhere.py")
        events = _read_until(
            proc, lambda e: e["event"] == "quarantined" and e["tool"] == "echo_tool")
        assert events[-1]["version"] == "1" and "hard links" in events[-1]["detail"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_approve_refuses_a_hard_linked_file(registry: Registry, tmp_path: Path) -> None:
    _two_versions(registry)
    dropped = registry.root / "echo_tool" / "v3.py"
    dropped.write_bytes(tool_source(answer="3"))
    os.link(dropped, tmp_path / "elsewhere.py")
    with pytest.raises(UsageError, match="hard links"):
        registry.approve("echo_tool", 3)
    assert registry.current("echo_tool").version == 2
