"""Bad tool names are refused with a clear error before any file is touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from dyntools.errors import UsageError
from dyntools.registry import Registry

from .helpers import snapshot, tool_source

BAD_NAMES = [
    # path separators and traversal
    "a/b", "../evil", "..", ".", "a\\b", "/abs",
    # dots
    "a.b", "echo_tool.py",
    # unicode, including look-alikes and invisible characters
    "caf\u00e9", "\u0435cho", "echo\u200btool", "\u3164",
    # too long
    "a" * 65,
    # Python keywords
    "class", "import", "None",
    # not snake_case
    "", "Echo", "echo-tool", "echo tool", "1tool", "_private", "echo\0tool",
]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_bad_name_is_refused_before_any_file_is_touched(registry: Registry, name: str) -> None:
    registry.add_version("echo_tool", tool_source(), {})
    before = snapshot(registry.root)
    calls = [
        lambda: registry.add_version(name, tool_source(name="echo_tool"), {}),
        lambda: registry.activate(name, 1),
        lambda: registry.rollback(name, 1),
        lambda: registry.approve(name, 1),
        lambda: registry.quarantine(name, 1, "why"),
        lambda: registry.current(name),
        lambda: registry.versions(name),
        lambda: registry.path_of(name, 1),
    ]
    for call in calls:
        with pytest.raises(UsageError):
            call()
    assert snapshot(registry.root) == before


def test_longest_valid_name_is_accepted(registry: Registry) -> None:
    name = "a" * 64
    assert registry.add_version(name, tool_source(name=name), {}).version == 1


def test_bad_name_folder_on_disk_is_reported_not_loaded(tmp_path: Path, policy) -> None:
    root = tmp_path / "reg"
    (root / "Bad-Name").mkdir(parents=True)
    (root / "Bad-Name" / "v1.py").write_bytes(tool_source())
    registry = Registry.open(root, policy)
    assert registry.names() == []
    assert [u.name for u in registry.unrecorded()] == ["Bad-Name"]
