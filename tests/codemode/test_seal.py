"""A kept run is sealed (dyntools/codemode/seal.py): an edit made through the registry's
folder (a recorded result, a limit, the source with its hash, the seal removed, a record copied
from another registry) is refused by resume and promote with reason `run_tampered`, through
the library and the CLI; a seal key that is not this user's own refuses too."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from dyntools.codemode.engine import run_store
from dyntools.codemode.seal import SEAL_FIELD, forget_keys, key_path
from dyntools.errors import RunTampered, TrustStateError
from dyntools.gate.findings import sha256_hex
from dyntools.pipeline.dyntools import Dyntools
from tests.support.cli import run_cli

from .conftest import TWO_CALLS, registry_with, rewrite_record


@pytest.fixture
def waiting_registry(tmp_path: Path) -> Path:
    return registry_with(tmp_path / "registry", pending=("slugify_text",))


def _forged_source(data: dict[str, Any]) -> None:
    data["source"] = data["source"].replace('print("slugged")', 'print("forged")')
    data["sha256"] = sha256_hex(data["source"].encode("utf-8"))


EDITS = {
    "a recorded result": lambda d: d["calls"][0]["result"].update(words=99),
    "a limit": lambda d: d["limits"].update(max_tool_calls=10_000),
    "the source and its hash": _forged_source,
    "the seal removed": lambda d: d.pop(SEAL_FIELD),
    "the seal of another record": lambda d: d.update(seal="0" * 64),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_waiting_run_is_not_resumed(waiting_registry: Path, edit: str) -> None:
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "a b"})
        assert first.status == "waiting"
        rewrite_record(run_store(dt), first.run_id, EDITS[edit], reseal=False)
        dt.approve("slugify_text", 1)
        with pytest.raises(RunTampered) as caught:
            dt.resume_run(first.run_id)
    assert caught.value.reason == "run_tampered"
    assert "does not match its seal" in caught.value.message or \
        "has no seal" in caught.value.message


def test_the_same_record_sealed_by_this_user_resumes(waiting_registry: Path) -> None:
    """The accepted case: the seal refuses edits, not records dyntools kept."""
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "a b"})
        dt.approve("slugify_text", 1)
        done = dt.resume_run(first.run_id)
    assert done.status == "ok" and done.result == {"words": 2, "slug": "a-b"}


def test_a_record_copied_from_another_registry_is_refused(tmp_path: Path) -> None:
    one = registry_with(tmp_path / "one", pending=("slugify_text",))
    two = registry_with(tmp_path / "two", pending=("slugify_text",))
    with Dyntools(one) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "a b"})
    with Dyntools(two) as other:
        folder = run_store(other).folder
        folder.mkdir(mode=0o700, exist_ok=True)
        shutil.copy2(run_store(other).folder.parent.parent / "one" / ".runs" /
                     f"{first.run_id}.json", folder / f"{first.run_id}.json")
        other.approve("slugify_text", 1)
        with pytest.raises(RunTampered):
            other.resume_run(first.run_id)


def test_an_edited_finished_run_is_not_promoted(dt: Dyntools) -> None:
    done = dt.run_code(TWO_CALLS, {"title": "a b"})
    assert done.status == "ok"
    rewrite_record(run_store(dt), done.run_id,
                   lambda d: d.update(result={"words": 2, "slug": "x"}), reseal=False)
    with pytest.raises(RunTampered):
        dt.promote(done.run_id, "title_facts")
    assert "title_facts" not in dt.registry.names()


def test_a_tampered_run_is_left_out_of_the_list(dt: Dyntools) -> None:
    kept = dt.run_code("result = {'n': 1}\n")
    edited = dt.run_code("result = {'n': 2}\n")
    rewrite_record(run_store(dt), edited.run_id, lambda d: d.update(output="hi"),
                   reseal=False)
    assert [r.run_id for r in dt.runs()] == [kept.run_id]


def test_cli_resume_of_an_edited_run_exits_16_with_the_reason(tmp_path: Path,
                                                              waiting_registry: Path) -> None:
    with Dyntools(waiting_registry) as dt:
        run_id = dt.run_code(TWO_CALLS, {"title": "a b"}).run_id
        rewrite_record(run_store(dt), run_id, EDITS["a recorded result"], reseal=False)
        dt.approve("slugify_text", 1)
    base = ["--registry", str(waiting_registry)]
    code, out, err = run_cli(["resume", run_id, "--json", *base], tmp_path)
    assert code == 16, (out, err)
    assert json.loads(out)["error"]["reason"] == "run_tampered"
    code, out, err = run_cli(["promote", run_id, "title_facts", *base], tmp_path)
    assert code == 16 and "does not match its seal" in err


def test_a_seal_key_others_may_read_refuses(waiting_registry: Path) -> None:
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "a b"})
        path = key_path()
        os.chmod(path, 0o644)
        forget_keys()  # as another process would, read the key again
        try:
            with pytest.raises(TrustStateError, match="readable by others"):
                dt.resume_run(first.run_id)
        finally:
            forget_keys()


def test_without_a_seal_key_a_run_is_not_kept_and_cannot_wait(
        waiting_registry: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("", "utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    forget_keys()
    try:
        with Dyntools(waiting_registry) as dt:
            done = dt.run_code("result = {'n': 1}\n")
            waits = dt.run_code(TWO_CALLS, {"title": "a b"})
    finally:
        forget_keys()
    assert (done.status, done.as_dict()["kept"]) == ("ok", False)
    value = waits.as_dict()
    assert (value["status"], value["error"]["reason"]) == ("error", "persist_failed")
    assert "run-seal key" in value["error"]["message"]


def test_processes_making_the_key_at_once_agree_on_one(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = "from dyntools.codemode.seal import seal_key; print(seal_key().hex())"
    env = {**os.environ, "DYNTOOLS_TRUST_STATE": str(tmp_path / "state")}
    started = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE) for _ in range(4)]
    keys = {started_one.communicate(timeout=60)[0].decode().strip() for started_one in started}
    assert len(keys) == 1 and len(next(iter(keys))) == 64, keys
    assert os.stat(tmp_path / "state" / "runs.key").st_mode & 0o777 == 0o600
    assert sorted(os.listdir(tmp_path / "state")) == ["runs.key"]  # no temporary file left
