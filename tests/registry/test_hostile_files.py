"""Hostile shapes on disk: a manifest built to crash the parser, a FIFO under a version file's
name, and version numbers past what a manifest may record. Each must leave the registry
opening and the tool's good versions serving, never crash, hang or break the tool."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from dyntools.cli import main
from dyntools.errors import PersistError, UsageError
from dyntools.registry import QUARANTINED, Registry
from dyntools.registry.manifest import MAX_VERSION

from .helpers import tool_source


def _one_version(registry: Registry) -> Path:
    registry.add_version("echo_tool", tool_source(), {"generator": "test"})
    return registry.root / "echo_tool" / "manifest.json"


@pytest.mark.parametrize(
    "body",
    [
        '{"format": 1, "name": "echo_tool", "versions": [' + "[" * 100_000 + "]" * 100_000 + "]}",
        '{"format": ' + "1" * 5000 + ', "name": "echo_tool", "versions": []}',
    ],
    ids=["deep_nesting", "integer_past_digit_limit"],
)
def test_a_manifest_that_breaks_the_json_parser_is_invalid_not_a_crash(
    registry: Registry, body: str
) -> None:
    _one_version(registry).write_text(body)
    reopened = Registry.open(registry.root, registry.policy)
    state = reopened.tool("echo_tool")
    assert state.error is not None and "not valid JSON" in state.error
    assert reopened.current("echo_tool") is None


def test_a_fifo_under_a_version_file_name_is_refused_without_blocking(
    registry: Registry,
) -> None:
    _one_version(registry)
    version_file = registry.path_of("echo_tool", 1)
    version_file.unlink()
    os.mkfifo(version_file)  # opening it for reading would block until a writer appears
    reopened = Registry.open(registry.root, registry.policy)
    record = reopened.get("echo_tool", 1)
    assert record.status == QUARANTINED and record.reason_code == "not_a_regular_file"


def test_approving_a_version_number_no_manifest_can_hold_is_refused(registry: Registry) -> None:
    manifest = _one_version(registry)
    before = manifest.read_bytes()
    too_big = MAX_VERSION + 1
    (manifest.parent / f"v{too_big}.py").write_bytes(tool_source(answer="big"))
    with pytest.raises(UsageError, match="version number"):
        registry.approve("echo_tool", too_big)
    assert manifest.read_bytes() == before
    assert Registry.open(registry.root, registry.policy).current("echo_tool").version == 1


def test_a_planted_last_version_number_cannot_break_the_tool(registry: Registry) -> None:
    manifest = _one_version(registry)
    # An unrecorded file with the highest number makes the next version number one too many.
    (manifest.parent / f"v{MAX_VERSION}.py").write_bytes(tool_source(answer="planted"))
    with pytest.raises(PersistError, match="every version number"):
        registry.add_version("echo_tool", tool_source(answer="two"), {"generator": "test"})
    reopened = Registry.open(registry.root, registry.policy)
    assert reopened.tool("echo_tool").error is None
    assert reopened.current("echo_tool").version == 1


def test_a_forged_manifest_cannot_serve_a_file_that_names_another_tool(
    registry: Registry,
) -> None:
    """The manifest is unsigned: a file and its hash can be forged together. The file must
    still declare its folder's tool name, as the write path requires."""
    manifest = _one_version(registry)
    other = tool_source("other_tool")
    version_file = registry.path_of("echo_tool", 1)
    version_file.chmod(0o644)
    version_file.write_bytes(other)
    raw = json.loads(manifest.read_text())
    raw["versions"][0]["sha256"] = hashlib.sha256(other).hexdigest()
    manifest.write_text(json.dumps(raw))
    reopened = Registry.open(registry.root, registry.policy)
    record = reopened.get("echo_tool", 1)
    assert record.status == QUARANTINED and record.reason_code == "name_mismatch"
    assert reopened.current("echo_tool") is None


def test_a_tool_folder_swapped_for_a_symlink_is_not_served_after_a_refresh(
    registry: Registry, tmp_path: Path
) -> None:
    """Open skips a symlinked tool folder; refreshing one name (watch, the pipeline's
    lookup) must not follow it either."""
    folder = _one_version(registry).parent
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(folder, elsewhere)
    shutil.rmtree(folder)
    folder.symlink_to(elsewhere, target_is_directory=True)
    registry.refresh("echo_tool")
    assert registry.current("echo_tool") is None
    assert registry.tool("echo_tool").error is not None
    assert Registry.open(registry.root, registry.policy).current("echo_tool") is None


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_provenance_that_is_not_strict_json_is_refused(registry: Registry, value: float) -> None:
    with pytest.raises(UsageError, match="JSON"):
        registry.add_version("echo_tool", tool_source(), {"generator": "test", "score": value})
    assert not (registry.root / "echo_tool").exists()


def test_approve_file_reads_no_more_than_the_gate_allows(registry: Registry,
                                                         tmp_path: Path) -> None:
    """/dev/zero (or an endless pipe) is refused as what it is, never read; a regular file
    over the gate's size limit is refused by the limit, read no further than it."""
    result = CliRunner().invoke(
        main, ["approve", "echo_tool", "--file", "/dev/zero", "--registry", str(registry.root)],
        catch_exceptions=False,
    )
    assert result.exit_code == 2
    assert "is a character device, not a regular file" in result.output
    big = tmp_path / "big.py"
    big.write_bytes(b"#" * (registry.policy.limits.max_bytes + 4096))
    result = CliRunner().invoke(
        main, ["approve", "echo_tool", "--file", str(big), "--registry", str(registry.root)],
        catch_exceptions=False,
    )
    assert result.exit_code == 1
    assert "DT008" in result.output


def test_a_huge_file_planted_under_a_version_name_is_not_read_whole(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    _one_version(registry)
    version_file = registry.path_of("echo_tool", 1)
    recorded_size = version_file.stat().st_size
    version_file.chmod(0o644)
    with open(version_file, "r+b") as handle:
        handle.truncate(1 << 30)  # sparse: a gigabyte on paper, nothing on disk
    read_sizes: list[int] = []
    real_read = os.read

    def counting_read(fd: int, size: int) -> bytes:
        chunk = real_read(fd, size)
        read_sizes.append(len(chunk))
        return chunk

    monkeypatch.setattr(os, "read", counting_read)
    reopened = Registry.open(registry.root, registry.policy)
    monkeypatch.undo()
    record = reopened.get("echo_tool", 1)
    assert record.status == QUARANTINED and record.reason_code == "hash_mismatch"
    assert sum(read_sizes) < 1 << 16
    assert sum(read_sizes) >= recorded_size + 1


# ----------------------------------------------------------- sizes a manifest cannot dictate
# (red team F8: a sparse 3 GiB manifest was read whole, a MemoryError traceback; a version
# file was read up to the manifest's own `size`.)


def test_a_huge_manifest_is_invalid_without_being_read_whole(registry: Registry,
                                                             tmp_path: Path) -> None:
    from tests.support.cli import run_cli

    manifest = _one_version(registry)
    os.truncate(manifest, 3 << 30)  # sparse: costs no disk, would cost 3 GiB of memory
    code, out, err = run_cli(["call", "echo_tool", "--params", "{}", "--json", "--registry",
                              str(registry.root)], tmp_path)
    assert code == 16, err
    assert "larger than the limit of" in json.loads(out)["error"]["message"]
    assert "Traceback" not in err
    code, out, err = run_cli(["review", "--registry", str(registry.root)], tmp_path)
    assert code == 1 and "Traceback" not in err
    assert "MANIFEST INVALID" in out and "larger than the limit" in out


def test_a_manifest_under_the_limit_is_read(registry: Registry) -> None:
    from dyntools.registry.manifest import MAX_MANIFEST_BYTES

    manifest = _one_version(registry)
    padded = manifest.read_bytes() + b" " * (MAX_MANIFEST_BYTES // 8)  # JSON allows the blanks
    manifest.write_bytes(padded)
    assert Registry.open(registry.root, registry.policy).current("echo_tool").version == 1


def test_a_recorded_size_over_the_gate_limit_is_refused_unread(registry: Registry) -> None:
    manifest = _one_version(registry)
    data = json.loads(manifest.read_text())
    data["versions"][0]["size"] = 3 << 30
    manifest.write_text(json.dumps(data))
    reopened = Registry.open(registry.root, registry.policy)
    record = reopened.get("echo_tool", 1)
    assert record.status == QUARANTINED and record.reason_code == "too_large"
    assert str(registry.policy.limits.max_bytes) in str(record.reason)
    assert reopened.current("echo_tool") is None
