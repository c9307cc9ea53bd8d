"""A cold `dyntools call` (the real console entry point, in a fresh interpreter, with a real
worker) looks the tool's current version up once, and reads and hash-checks its file once on
its way to the worker (beside the registry's open rule, which checks the file when the tool
is first asked for): the params check and the runtime are handed those bytes. An unknown tool
is refused with the registry's one wording, on the CLI and through the runtime alike."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from dyntools.errors import UnknownTool
from dyntools.pipeline.runtime import Runtime
from dyntools.registry import Registry
from tests.registry.helpers import tool_source
from tests.support.cli import dyntools
from tests.support.environment import env_without_dyntools

PROBE = r"""
import os, sys
from dyntools.registry.core import Registry

version_file = os.path.realpath(sys.argv[1])
counts = {"current": 0, "verified": 0, "opened": 0}
real_current, real_verified, real_open = Registry.current, Registry.verified_source, os.open

def current(self, name):
    counts["current"] += 1
    return real_current(self, name)

def verified(self, name, version, **options):
    counts["verified"] += 1
    return real_verified(self, name, version, **options)

def opened(path, *args, **kwargs):
    if os.path.realpath(os.fspath(path)) == version_file:
        counts["opened"] += 1
    return real_open(path, *args, **kwargs)

Registry.current, Registry.verified_source, os.open = current, verified, opened
sys.argv = ["dyntools", "call", "echo_tool", "--params", "{}", "--json", "--registry",
            sys.argv[2]]
from dyntools.cli import script
code = 0
try:
    script()
except SystemExit as exc:
    code = exc.code or 0
sys.stdout.flush()
sys.stderr.write("\n" + repr([code, counts]) + "\n")
"""


def test_a_cold_call_looks_up_reads_and_hashes_its_version_once(tmp_path: Path) -> None:
    registry = Registry.open(tmp_path / "reg")
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    version_file = registry.path_of("echo_tool", 1)
    env = env_without_dyntools()
    done = subprocess.run([sys.executable, "-c", PROBE, str(version_file),
                           str(tmp_path / "reg")], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120, check=True)
    code, counts = ast.literal_eval(done.stderr.strip().splitlines()[-1])
    answer = json.loads(done.stdout)
    assert (code, answer["version"], answer["result"]) == (0, 1, {"answer": "1"})
    # one lookup; the file opened by the open rule, and once more, read and hash-checked, for
    # the worker (the params check reads the same bytes)
    assert counts == {"current": 1, "verified": 1, "opened": 2}


def test_an_unknown_tool_is_refused_in_one_wording(tmp_path: Path) -> None:
    registry = Registry.open(tmp_path / "reg")
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    wording = f"unknown tool 'nope' in registry {registry.root}"
    with Runtime(registry, prewarm=False) as runtime, pytest.raises(UnknownTool) as info:
        runtime.call("nope", {})
    assert info.value.message == wording
    done = dyntools("call", "nope", "--params", "{}", "--registry", str(registry.root))
    assert done.returncode == 2
    assert wording in done.stderr


def test_a_warm_call_reads_no_version_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dyntools import Dyntools

    registry = Registry.open(tmp_path / "reg")
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    reads: list[tuple[str, int]] = []
    real_verified = Registry.verified_source

    def verified(self: Registry, name: str, version: int, **options: str) -> bytes:
        reads.append((name, version))
        return real_verified(self, name, version, **options)

    monkeypatch.setattr(Registry, "verified_source", verified)
    with Dyntools(registry, pool_size=1) as dt:
        assert dt.call("echo_tool", {}) == {"answer": "1"}
        assert reads == [("echo_tool", 1)]  # the cold call: read and hash-checked once
        for _ in range(5):
            assert dt.call("echo_tool", {}) == {"answer": "1"}
        assert reads == [("echo_tool", 1)]  # warm: the pool runs the bytes it was started from
        # a new current version: read for its pool (the swap) and its params check, then
        # never again while that pool serves it
        registry.add_version("echo_tool", tool_source(answer="2"), {})
        assert dt.call("echo_tool", {}) == {"answer": "2"}
        switched = list(reads)
        assert switched[0] == ("echo_tool", 1) and set(switched[1:]) == {("echo_tool", 2)}
        for _ in range(5):
            assert dt.call("echo_tool", {}) == {"answer": "2"}
        assert reads == switched


def test_an_edit_on_disk_is_refused_at_the_next_load_not_run(tmp_path: Path) -> None:
    """A warm pool keeps serving the bytes it checked when it started (nothing else reaches
    its worker); the edited file is refused, and quarantined, wherever it is read again."""
    from dyntools import Dyntools
    from dyntools.errors import VersionUnusable

    registry = Registry.open(tmp_path / "reg")
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    with Dyntools(registry, pool_size=1) as dt:
        assert dt.call("echo_tool", {}) == {"answer": "1"}
        path = registry.path_of("echo_tool", 1)
        path.write_bytes(tool_source(answer="2"))
        assert dt.call("echo_tool", {}) == {"answer": "1"}
    with Dyntools(tmp_path / "reg", pool_size=1) as fresh, pytest.raises(VersionUnusable):
        fresh.call("echo_tool", {})


def test_a_version_quarantined_between_lookup_and_checkout_is_not_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The call looked v2 up (warm), then a reviewer quarantined it and the runtime fell back
    to v1 before the call checked its pool out: the call is served by v1, as one that had
    looked a moment later would be, not refused because v2's file is no longer served."""
    from dyntools import Dyntools

    registry = Registry.open(tmp_path / "reg")
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    registry.add_version("echo_tool", tool_source(answer="2"), {})
    real_call = Runtime.call
    armed: list[bool] = []

    def call(self: Runtime, name: str, params: dict, timeout: float | None = None,
             **options: object) -> dict:
        if armed:
            armed.clear()
            registry.quarantine("echo_tool", 2, "reviewer says no")
        return real_call(self, name, params, timeout, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(Runtime, "call", call)
    with Dyntools(registry, pool_size=1) as dt:
        assert dt.call("echo_tool", {}) == {"answer": "2"}
        assert dt.call("echo_tool", {}) == {"answer": "2"}
        armed.append(True)
        served = dt.call_served("echo_tool", {})
        assert (served.version, served.result) == (1, {"answer": "1"})


def test_a_version_number_given_other_bytes_is_checked_and_run_as_those_bytes(
        tmp_path: Path) -> None:
    """A writer without trusted keys rewrites v1 (its file, and the manifest's hash to match)
    behind a process whose pool serves v1: the next call is checked against the new bytes'
    params schema and runs the new bytes, never the old pool with the new check."""
    import hashlib
    import os

    from dyntools import Dyntools
    from dyntools.errors import InvalidParams

    root = tmp_path / "reg"
    registry = Registry.open(root)
    registry.add_version("echo_tool", tool_source(answer="A"), {})
    rewritten = tool_source(answer="B").replace(
        b'PARAMS = {"type": "object", "properties": {}}',
        b'PARAMS = {"type": "object", "properties": {"n": {"type": "integer"}}, '
        b'"required": ["n"]}')
    assert rewritten != tool_source(answer="B")
    with Dyntools(registry, pool_size=1) as dt:
        assert dt.call("echo_tool", {}) == {"answer": "A"}
        path = registry.path_of("echo_tool", 1)
        os.chmod(path, 0o644)
        path.write_bytes(rewritten)
        manifest_path = root / "echo_tool" / "manifest.json"
        manifest = json.loads(manifest_path.read_text())
        digest = hashlib.sha256(rewritten).hexdigest()
        manifest["versions"][0].update(sha256=digest, size=len(rewritten))
        manifest["versions"][0]["gate"]["sha256"] = digest
        manifest_path.write_text(json.dumps(manifest))
        registry.refresh("echo_tool")
        with pytest.raises(InvalidParams):
            dt.call("echo_tool", {})
        assert dt.call("echo_tool", {"n": 1}) == {"answer": "B"}
