"""Where runs are kept: `.runs/` under the registry, bounded in count, size and per record;
records read back only when well formed and this user's own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dyntools.codemode.record import CallRecord, RunRecord, call_key
from dyntools.codemode.store import RunStore
from dyntools.errors import RunLimitExceeded, UnknownRun
from dyntools.registry import Registry

from .conftest import rewrite_record


def record(status: str = "ok", **changes: object) -> RunRecord:
    made = RunRecord.new("result = {}\n", "s" * 64, "p" * 64, {"n": 1},
                         {"max_output": 100}, "registry")
    made.status = status
    for key, value in changes.items():
        setattr(made, key, value)
    return made


def big_call(size: int) -> CallRecord:
    return CallRecord("word_count", {"text": "x"}, call_key("word_count", {"text": "x"}),
                      "ok", 1, 1.0, 1, {"blob": "y" * size}, None)


def test_save_load_and_the_folder(tmp_path: Path) -> None:
    store = RunStore(tmp_path / ".runs")
    kept = record()
    store.save(kept)
    assert store.load(kept.run_id) == kept
    assert (tmp_path / ".runs" / ".gitignore").read_text() == "*\n"
    assert [r.run_id for r in store.records()] == [kept.run_id]


def test_the_registry_never_sees_runs_as_tools(tmp_path: Path) -> None:
    root = tmp_path / "registry"
    registry = Registry.open(root, create=True)
    RunStore(root / ".runs").save(record())
    assert registry.names() == []
    reopened = Registry.open(root)
    assert reopened.names() == [] and reopened.tools() == []


def test_retention_removes_the_oldest_finished_runs_first(tmp_path: Path) -> None:
    store = RunStore(tmp_path / ".runs", max_runs=3)
    waiting = record("waiting", waiting={"tool": "t"})
    store.save(waiting)
    finished = []
    for index in range(4):
        made = record()
        store.save(made)
        os.utime(store.path_of(made.run_id), (1000 + index, 1000 + index))
        finished.append(made.run_id)
    left = {r.run_id for r in store.records()}
    assert waiting.run_id in left and len(left) == 3
    assert finished[-1] in left  # the newest is kept; the oldest finished ones went


def test_a_record_over_the_cap_is_trimmed_or_refused(tmp_path: Path) -> None:
    store = RunStore(tmp_path / ".runs", max_record_bytes=20_000)
    done = record(calls=[big_call(50_000)], output="o" * 50)
    store.save(done)
    back = store.load(done.run_id)
    assert back.trimmed and back.calls[0].result == {} and back.inputs == {"n": 1}
    waiting = record("waiting", calls=[big_call(50_000)], waiting={"tool": "t"})
    with pytest.raises(RunLimitExceeded, match="cannot wait"):
        store.save(waiting)


def test_total_size_cap(tmp_path: Path) -> None:
    store = RunStore(tmp_path / ".runs", max_total_bytes=30_000)
    ids = []
    for _ in range(5):
        made = record(calls=[big_call(8_000)])
        store.save(made)
        ids.append(made.run_id)
    total = sum(p.stat().st_size for p in (tmp_path / ".runs").glob("*.json"))
    assert total <= 30_000 and ids[-1] in {r.run_id for r in store.records()}


@pytest.mark.parametrize("change", [
    lambda d: d.update(status="done"),
    lambda d: d.update(run_id="../../x"),
    lambda d: d.update(calls=[{"tool": 1}]),
    lambda d: d.update(inputs=[]),
    lambda d: d.pop("source"),
])
def test_a_record_that_is_not_well_formed_is_not_read(tmp_path: Path, change: object) -> None:
    store = RunStore(tmp_path / ".runs")
    kept = record()
    store.save(kept)
    # Sealed again: the record's own checks hold behind the seal's.
    rewrite_record(store, kept.run_id, change, reseal=True)
    with pytest.raises(UnknownRun):
        store.load(kept.run_id)


def test_a_record_others_may_write_or_a_link_is_not_read(tmp_path: Path) -> None:
    store = RunStore(tmp_path / ".runs")
    kept = record()
    store.save(kept)
    path = store.path_of(kept.run_id)
    os.chmod(path, 0o666)
    with pytest.raises(UnknownRun, match="writable by others"):
        store.load(kept.run_id)
    os.chmod(path, 0o600)
    other = record()
    store.save(other)
    other_path = store.path_of(other.run_id)
    other_path.unlink()
    other_path.symlink_to(path)
    with pytest.raises(UnknownRun, match="cannot be read"):
        store.load(other.run_id)


def test_ids_never_reach_a_path(tmp_path: Path) -> None:
    store = RunStore(tmp_path / ".runs")
    for bad in ("../x", "/etc/passwd", "0123456789abcde", "0123456789abcdeF", "\x00" * 16):
        with pytest.raises(UnknownRun):
            store.path_of(bad)
