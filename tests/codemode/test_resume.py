"""Pause and resume: a call of a tool that only has a pending version suspends the run; after
a decision, `resume_run` replays the recorded calls (never running them again), runs the call
it waited at, and goes on. What the replay must guarantee is each test here."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from dyntools.catalog.core import Catalog
from dyntools.codemode.engine import run_store
from dyntools.errors import RegistryError, UnknownRun, UsageError
from dyntools.gate.policy import load_policy
from dyntools.generators.offline import template_source
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry
from tests.support.cli import run_cli

from .conftest import TWO_CALLS, registry_with, rewrite_record

COUNTED = '''"""Counts a side effect, then needs a tool that waits for a reviewer."""
first = tools.bump(by=1)
print("bumped to", first["count"])
slug = tools.slugify_text(text=inputs["title"])
print("after the wait")
result = {"count": first["count"], "slug": slug["slug"]}
'''


@pytest.fixture
def waiting_registry(tmp_path: Path) -> Path:
    return registry_with(tmp_path / "registry", pending=("slugify_text",))


def counting_catalog(dt: Dyntools, calls: list[dict[str, Any]]) -> Catalog:
    catalog = Catalog(dt, generate=False)

    def bump(params: dict[str, Any]) -> dict[str, Any]:
        calls.append(params)
        return {"count": len(calls)}

    catalog.add("bump", bump, description="Counts its calls.",
                params={"type": "object", "properties": {"by": {"type": "integer"}}})
    return catalog


def test_pause_approve_resume_finish(waiting_registry: Path) -> None:
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "Hello big World"})
        value = first.as_dict()
        assert value["status"] == "waiting"
        assert value["waiting"] == {"tool": "slugify_text", "version": 1, "call": 2,
                                    "approve_command": "dyntools approve slugify_text 1"}
        assert value["resume_command"] == f"dyntools resume {first.run_id}"
        assert value["output"] == "start Hello big World\ncounted 3\n"
        assert [e["outcome"] for e in value["trace"]] == ["ok", "waiting"]
        # Nothing decided yet: still waiting, and no worker was started for it.
        again = dt.resume_run(first.run_id)
        assert again.status == "waiting" and again.output == ""
        assert dt.run_record(first.run_id).segments == 1
        dt.approve("slugify_text", 1)
        done = dt.resume_run(first.run_id)
    value = done.as_dict()
    assert value["status"] == "ok", value
    assert value["result"] == {"words": 3, "slug": "hello-big-world"}
    assert value["output"] == "slugged\n"  # the replayed prefix's output is not shown again
    assert [(e["tool"], e["outcome"], e["segment"]) for e in value["trace"]] == [
        ("word_count", "ok", 1), ("slugify_text", "ok", 2)]
    record = Dyntools(waiting_registry).run_record(first.run_id)
    assert record.output == "start Hello big World\ncounted 3\nslugged\n"
    assert (record.status, record.segments, record.waiting) == ("ok", 2, None)


def test_a_decision_made_by_another_process_is_seen(waiting_registry: Path,
                                                     tmp_path: Path) -> None:
    """A long-lived caller (a server) resumes after `dyntools approve` ran elsewhere."""
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "a b"})
        assert dt.resume_run(first.run_id).status == "waiting"  # read before the decision
        code, _, err = run_cli(["approve", "slugify_text", "1", "--registry",
                                str(waiting_registry)], tmp_path)
        assert code == 0, err
        done = dt.resume_run(first.run_id)
    assert (done.status, done.result) == ("ok", {"words": 2, "slug": "a-b"})


def test_completed_calls_are_never_executed_again(waiting_registry: Path) -> None:
    calls: list[dict[str, Any]] = []
    with Dyntools(waiting_registry) as dt:
        catalog = counting_catalog(dt, calls)
        first = dt.run_code(COUNTED, {"title": "A B"}, tools=catalog)
        assert first.status == "waiting" and calls == [{"by": 1}]
        dt.approve("slugify_text", 1)
        done = dt.resume_run(first.run_id, tools=catalog)
    assert done.status == "ok", done.as_dict()
    assert calls == [{"by": 1}]  # the replay answered from the record
    assert done.result == {"count": 1, "slug": "a-b"}
    assert done.output == "after the wait\n"


def test_a_resume_never_hands_over_answers_of_tools_its_caller_does_not_serve(
        waiting_registry: Path) -> None:
    """A run made through a catalog with a hand-written tool, resumed through the library
    (the registry's tools only): refused before anything runs; through the catalog: fine."""
    calls: list[dict[str, Any]] = []
    with Dyntools(waiting_registry) as dt:
        catalog = counting_catalog(dt, calls)
        first = dt.run_code(COUNTED, {"title": "A B"}, tools=catalog)
        dt.approve("slugify_text", 1)
        with pytest.raises(UsageError, match=r"does not serve now \(bump\)") as caught:
            dt.resume_run(first.run_id)
        assert caught.value.details["tools"] == ["bump"]
        assert dt.run_record(first.run_id).status == "waiting"  # nothing ran
        done = dt.resume_run(first.run_id, tools=catalog)
    assert done.status == "ok" and calls == [{"by": 1}]


def test_a_rejected_tool_raises_tool_error_where_the_script_waited(
        waiting_registry: Path) -> None:
    catching = TWO_CALLS.replace(
        'slug = tools.slugify_text(text=inputs["title"])',
        'from host import ToolError\ntry:\n    slug = tools.slugify_text(text=inputs["title"])\n'
        'except ToolError as exc:\n    slug = {"slug": None, "why": exc.reason}')
    with Dyntools(waiting_registry) as dt:
        handled = dt.run_code(catching, {"title": "a"})
        failing = dt.run_code(TWO_CALLS, {"title": "a"})
        assert (handled.status, failing.status) == ("waiting", "waiting")
        dt.registry.decide("slugify_text", 1, "reject", by="test", reason="not today")
        after_handled = dt.resume_run(handled.run_id)
        after_failing = dt.resume_run(failing.run_id)
    assert after_handled.status == "ok"
    assert after_handled.result == {"words": 1, "slug": None}
    assert after_handled.trace[-1]["outcome"] == "version_unusable"
    assert after_failing.status == "error"
    assert after_failing.as_dict()["error"]["reason"] == "runtime_error"
    assert "ToolError" in after_failing.as_dict()["error"]["message"]


def _edit(dt: Dyntools, run_id: str, change: Any) -> None:
    """An edit sealed again with this user's key: what the replay's own checks see."""
    rewrite_record(run_store(dt), run_id, change, reseal=True)


@pytest.mark.parametrize("where", ["recorded call", "waiting call"])
def test_a_call_other_than_the_recorded_one_ends_the_run(waiting_registry: Path,
                                                         where: str) -> None:
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "a b"})

        def change(data: dict[str, Any]) -> None:
            if where == "recorded call":
                data["calls"][0]["key"] = "0" * 64  # as if the script had called differently
            else:
                data["waiting"]["key"] = "0" * 64

        _edit(dt, first.run_id, change)
        dt.approve("slugify_text", 1)
        done = dt.resume_run(first.run_id)
    assert done.status == "error"
    assert done.as_dict()["error"]["reason"] == "replay_diverged"
    assert done.as_dict()["error"]["details"]["call"] == (1 if where == "recorded call" else 2)


def test_a_script_that_ends_before_the_call_it_waited_at_diverged(
        waiting_registry: Path) -> None:
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "a b"})
        # The same script, other inputs: it now fails before its second call.
        _edit(dt, first.run_id, lambda data: data.update(inputs={"title": 5}))
        dt.approve("slugify_text", 1)
        done = dt.resume_run(first.run_id)
    assert done.status == "error"
    assert done.as_dict()["error"]["reason"] in ("replay_diverged",)


def test_resume_gates_again_and_checks_the_source_hash(waiting_registry: Path,
                                                       tmp_path: Path) -> None:
    source = "import json\n" + TWO_CALLS
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(source, {"title": "a"})
        second = dt.run_code(source, {"title": "a"})
        _edit(dt, first.run_id, lambda data: data.update(
            source=data["source"].replace("words", "wordz")))
        with pytest.raises(RegistryError, match="not the source it ran"):
            dt.resume_run(first.run_id)
        dt.approve("slugify_text", 1)
    # Under a policy without json, the kept script is refused now.
    text = load_policy().text
    start = text.index("[modules.json]")
    end = text.index("\n[modules.string]")
    stricter = tmp_path / "strict.toml"
    stricter.write_text(text[:start] + text[end:], "utf-8")
    with Dyntools(Registry.open(waiting_registry, load_policy(stricter))) as strict:
        refused = strict.resume_run(second.run_id)
    assert refused.status == "refused"
    assert [f["code"] for f in refused.as_dict()["findings"]] == ["DT201"]


def test_resume_refuses_what_is_not_a_waiting_run(dt: Dyntools) -> None:
    done = dt.run_code("result = {}\n")
    with pytest.raises(UsageError, match="not waiting"):
        dt.resume_run(done.run_id)
    with pytest.raises(UnknownRun):
        dt.resume_run("0123456789abcdef")
    for bad in ("../../etc/passwd", "ABCDEF0123456789", "", "x" * 16):
        with pytest.raises(UnknownRun):
            dt.resume_run(bad)


def test_limits_are_cumulative(waiting_registry: Path) -> None:
    source = TWO_CALLS + "again = tools.word_count(text='x')\n"
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(source, {"title": "a"}, limits={"max_tool_calls": 2})
        assert first.status == "waiting"
        dt.approve("slugify_text", 1)
        done = dt.resume_run(first.run_id)
    assert done.status == "error"
    assert done.as_dict()["error"]["reason"] == "run_limit"
    assert [e["outcome"] for e in done.trace] == ["ok", "ok"]


def test_a_resume_timeout_caps_the_resume_and_never_extends_the_run(
        waiting_registry: Path) -> None:
    spins = TWO_CALLS + "n = 0\nwhile True:\n    n += 1\n"
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(spins, {"title": "a"}, limits={"timeout": 30})
        second = dt.run_code(TWO_CALLS, {"title": "a"}, limits={"timeout": 30})
        dt.approve("slugify_text", 1)
        with pytest.raises(UsageError, match="timeout"):
            dt.resume_run(first.run_id, timeout=0)
        before = dt.run_record(first.run_id).used_ms
        capped = dt.resume_run(first.run_id, timeout=0.5)  # ends at 0.5 s, not at 30
        # The live part is held to the time given, not to the worker's longer deadline
        # (which includes the replay's allowance): charged about 0.5 s, not 5.5.
        assert dt.run_record(first.run_id).used_ms - before < 2500
        wide = dt.resume_run(second.run_id, timeout=3600)  # allowed; the run's 30 s hold
        assert dt.run_record(second.run_id).limits["timeout"] == 30
    value = capped.as_dict()
    assert (value["status"], value["error"]["reason"]) == ("error", "timeout"), value
    assert wide.status == "ok"


def test_one_resume_at_a_time(waiting_registry: Path) -> None:
    with Dyntools(waiting_registry) as dt:
        first = dt.run_code(TWO_CALLS, {"title": "a"})
        store = run_store(dt)
        held = threading.Event()
        release = threading.Event()

        def hold() -> None:
            with store.claim(first.run_id):
                held.set()
                release.wait(10)

        thread = threading.Thread(target=hold)
        thread.start()
        try:
            assert held.wait(10)
            with pytest.raises(UsageError, match="another caller"):
                dt.resume_run(first.run_id)
        finally:
            release.set()
            thread.join()
        assert dt.resume_run(first.run_id).status == "waiting"


def test_a_tool_with_a_current_version_is_called_at_it_while_a_newer_one_waits(
        registry_path: Path) -> None:
    """Only a tool with no current version makes a run wait: a pending v2 of word_count
    leaves its calls at v1."""
    registry = Registry.open(registry_path)
    newer = template_source("word_count").replace('"words": len(text.split())',
                                                  '"words": len(text.split()) + 100')
    registry.add_version("word_count", newer, {"generator": "test"}, activate=False,
                         status="pending", reason="awaiting approval")
    with Dyntools(registry_path) as dt:
        done = dt.run_code("result = tools.word_count(text='a b')\n")
    assert (done.status, done.result["words"]) == ("ok", 2)
    assert [(e["tool"], e["version"], e["outcome"]) for e in done.trace] == [
        ("word_count", 1, "ok")]
