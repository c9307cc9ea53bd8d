"""A kept run cannot be rolled back (dyntools/codemode/progress.py): an earlier sealed record of
a run put back after the run went on is refused (`run_tampered`, exit 16), so no completed call
runs twice; and `<registry>/.runs` is never followed through a symlink (`runs_folder_unsafe`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dyntools.codemode.engine import run_store
from dyntools.codemode.progress import RunProgress
from dyntools.errors import RunsFolderUnsafe, RunTampered, TrustStateError
from dyntools.pipeline.dyntools import Dyntools
from tests.support.cli import run_cli

from .conftest import TWO_CALLS, audit_events, registry_with


@pytest.fixture
def waiting_registry(tmp_path: Path) -> Path:
    return registry_with(tmp_path / "registry", pending=("slugify_text",))


def _tool_calls(registry: Path, tool: str) -> int:
    return sum(1 for event in audit_events(registry / "audit.log", "run.tool_call")
               if event.get("tool") == tool)


def _waiting_copy(registry: Path) -> tuple[str, bytes]:
    """A run that waits for slugify_text, and its kept record's bytes at that moment."""
    with Dyntools(registry) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "a b"})
        assert first.status == "waiting"
        saved = run_store(dt).path_of(first.run_id).read_bytes()
        dt.approve("slugify_text", 1)
    return first.run_id, saved


def test_cli_a_resumed_run_put_back_is_not_resumed_again(tmp_path: Path,
                                                         waiting_registry: Path) -> None:
    """The red team's G4: copy the waiting record, resume, put the copy back, resume."""
    run_id, saved = _waiting_copy(waiting_registry)
    base = ["--registry", str(waiting_registry)]
    code, out, err = run_cli(["resume", run_id, "--json", *base], tmp_path)
    assert code == 0, (out, err)
    assert json.loads(out)["status"] == "ok"
    calls = _tool_calls(waiting_registry, "slugify_text")
    assert calls == 1
    record = waiting_registry / ".runs" / f"{run_id}.json"
    record.write_bytes(saved)
    code, out, err = run_cli(["resume", run_id, "--json", *base], tmp_path)
    assert code == 16, (out, err)
    error = json.loads(out)["error"]
    assert error["reason"] == "run_tampered"
    assert "earlier copy" in error["message"]
    assert _tool_calls(waiting_registry, "slugify_text") == calls  # not called again
    code, out, err = run_cli(["promote", run_id, "title_facts", *base], tmp_path)
    assert code == 16 and "earlier copy" in err


def test_the_latest_record_resumes_and_promotes(waiting_registry: Path) -> None:
    """The accepted case: the record dyntools kept last is resumed, then promoted."""
    run_id, _ = _waiting_copy(waiting_registry)
    with Dyntools(waiting_registry) as dt:
        done = dt.resume_run(run_id)
        assert done.status == "ok" and done.result == {"words": 2, "slug": "a-b"}
        dt.promote(run_id, "title_facts")
        assert "title_facts" in dt.registry.names()


def test_a_finished_record_put_back_over_its_promotion_is_refused(
        waiting_registry: Path) -> None:
    with Dyntools(waiting_registry) as dt:
        dt.approve("slugify_text", 1)
        done = dt.run_code(TWO_CALLS, {"title": "a b"})
        path = run_store(dt).path_of(done.run_id)
        before = path.read_bytes()
        dt.promote(done.run_id, "title_facts")
        path.write_bytes(before)
        with pytest.raises(RunTampered, match="earlier copy"):
            dt.promote(done.run_id, "title_facts_again")


def test_a_resume_that_did_not_keep_its_outcome_is_not_run_again(
        waiting_registry: Path) -> None:
    """A resume began (its calls may have run) but its record was never kept (a crash, a
    read-only registry): the waiting record is not resumed a second time."""
    run_id, _ = _waiting_copy(waiting_registry)
    with Dyntools(waiting_registry) as dt:
        store = run_store(dt)
        store.begin_resume(store.load(run_id))
        with pytest.raises(RunTampered, match="did not keep its outcome"):
            dt.resume_run(run_id)


def test_a_progress_file_others_may_write_refuses(waiting_registry: Path) -> None:
    run_id, _ = _waiting_copy(waiting_registry)
    with Dyntools(waiting_registry) as dt:
        path = RunProgress(run_store(dt).registry_root).folder / f"{run_id}.json"
        os.chmod(path, 0o666)
        with pytest.raises(TrustStateError, match="never reset silently"):
            dt.resume_run(run_id)


def test_cli_a_runs_folder_that_is_a_symlink_is_not_written(tmp_path: Path) -> None:
    """The red team's G6: `.runs` -> another folder; nothing is written there."""
    registry = registry_with(tmp_path / "registry", pending=("slugify_text",))
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()
    (registry / ".runs").symlink_to(elsewhere, target_is_directory=True)
    script = tmp_path / "job.py"
    script.write_text(TWO_CALLS, "utf-8")
    base = ["--registry", str(registry), "--input", '{"title": "a b"}']
    code, out, err = run_cli(["run", str(script), "--json", *base], tmp_path)
    assert code == 16, (out, err)
    assert json.loads(out)["error"]["reason"] == "runs_folder_unsafe"
    assert list(elsewhere.iterdir()) == []  # no record, no `.gitignore` of `*`
    script.write_text("result = {'n': 1}\n", "utf-8")
    code, out, err = run_cli(["run", str(script), "--json", "--registry", str(registry)],
                             tmp_path)
    assert code == 0 and json.loads(out)["kept"] is False, (out, err)
    assert list(elsewhere.iterdir()) == []
    with Dyntools(registry) as dt:
        assert dt.runs() == []  # the page lists nothing through the link
        with pytest.raises(RunsFolderUnsafe):
            dt.run_record("0123456789abcdef")
    code, out, err = run_cli(["resume", "0123456789abcdef", "--json",
                              "--registry", str(registry)], tmp_path)
    assert code == 16 and json.loads(out)["error"]["reason"] == "runs_folder_unsafe", err


def test_a_gitignore_link_in_the_runs_folder_is_not_followed(dt: Dyntools,
                                                             tmp_path: Path) -> None:
    folder = run_store(dt).folder
    folder.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    (folder / ".gitignore").symlink_to(victim)
    done = dt.run_code("result = {'n': 1}\n")
    assert done.status == "ok"
    assert not victim.exists()
    assert run_store(dt).load(done.run_id).result == {"n": 1}
