"""Crash safety (SIGKILL at random points) and several writer processes at once.

Writers are forked from the test process: no interpreter start-up per iteration, so many kill
points fit in a couple of seconds.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path

from dyntools.gate.findings import sha256_hex
from dyntools.registry import APPROVED, Registry
from dyntools.registry import core as registry_core

from .helpers import tool_source


def _fork(child: Callable[[], None]) -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 0
        try:
            child()
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    return pid


def _assert_consistent(registry: Registry) -> None:
    """Opens, nothing recorded is quarantined, and the pointer names a complete file."""
    assert registry.quarantined() == []
    assert registry.broken_tools() == []
    for state in registry.tools():
        if state.recorded_current is not None:
            assert state.current == state.recorded_current
            record = state.records[state.current]
            assert sha256_hex(record.path.read_bytes()) == record.sha256
        for record in state.records.values():
            assert record.path.stat().st_size == record.size


def test_sigkilled_writers_never_leave_a_broken_registry(registry: Registry) -> None:
    rng = random.Random(4)

    def writer() -> None:
        for i in range(10_000):
            registry.add_version("echo_tool", tool_source(answer=f"{os.getpid()}-{i}"), {})

    for _ in range(30):
        pid = _fork(writer)
        time.sleep(rng.uniform(0, 0.06))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        _assert_consistent(Registry.open(registry.root, registry.policy))
    after = Registry.open(registry.root, registry.policy)
    assert after.versions("echo_tool"), "no writer got far enough: the kill points are too early"
    on_disk = max(int(p.stem[1:]) for p in (registry.root / "echo_tool").glob("v*.py"))
    record = after.add_version("echo_tool", tool_source(answer="after"), {})
    assert record.version == on_disk + 1
    assert after.current("echo_tool") == record


def test_kill_between_version_file_and_manifest_leaves_an_untrusted_orphan(
    registry: Registry, monkeypatch
) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})

    def die(*_: object, **__: object) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    def writer() -> None:
        monkeypatch.setattr(registry_core, "publish", die)
        registry.add_version("echo_tool", tool_source(answer="2"), {})

    pid = _fork(writer)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status)
    reopened = Registry.open(registry.root, registry.policy)
    _assert_consistent(reopened)
    assert reopened.current("echo_tool").version == 1
    assert [u.version for u in reopened.unrecorded()] == [2]
    assert reopened.add_version("echo_tool", tool_source(answer="3"), {}).version == 3


def test_concurrent_writer_processes_get_distinct_versions(registry: Registry) -> None:
    writers, per_writer = 4, 5
    go_read, go_write = os.pipe()
    results = Path(registry.root.parent / "results")
    results.mkdir()

    def writer(n: int) -> Callable[[], None]:
        def run() -> None:
            os.read(go_read, 1)
            mine = Registry.open(registry.root, registry.policy)
            got = [
                mine.add_version("echo_tool", tool_source(answer=f"w{n}-{i}"), {}).version
                for i in range(per_writer)
            ]
            (results / str(n)).write_text(" ".join(map(str, got)))
        return run

    pids = [_fork(writer(n)) for n in range(writers)]
    os.write(go_write, b"x" * writers)  # release them together
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    claimed = [int(v) for f in results.iterdir() for v in f.read_text().split()]
    total = writers * per_writer
    assert sorted(claimed) == list(range(1, total + 1))
    reopened = Registry.open(registry.root, registry.policy)
    _assert_consistent(reopened)
    records = reopened.versions("echo_tool")
    assert [r.version for r in records] == list(range(1, total + 1))
    assert all(r.status == APPROVED for r in records)
    assert len({r.sha256 for r in records}) == total
