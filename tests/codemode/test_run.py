"""`Dyntools.run_code`: a script gated, run in a sandboxed worker, its tool calls answered on the
caller's surface, its run kept; each failure an outcome with a status, never an exception."""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from dyntools.catalog.core import Catalog
from dyntools.codemode.record import RunRecord
from dyntools.codemode.store import RUNS_DIR
from dyntools.errors import GateRejected, UsageError
from dyntools.pipeline.dyntools import Dyntools

from .conftest import TWO_CALLS


def test_a_script_calls_tools_prints_and_answers(dt: Dyntools, registry_path: Path) -> None:
    outcome = dt.run_code(TWO_CALLS, {"title": "Hello big World"})
    value = outcome.as_dict()
    assert value["status"] == "ok", value
    assert value["result"] == {"words": 3, "slug": "hello-big-world"}
    assert value["output"] == "start Hello big World\ncounted 3\nslugged\n"
    assert [(e["tool"], e["version"], e["outcome"]) for e in value["trace"]] == [
        ("word_count", 1, "ok"), ("slugify_text", 1, "ok")]
    assert all(set(e) >= {"tool", "version", "outcome", "ms"} for e in value["trace"])
    assert set(value) == {"status", "run_id", "result", "output", "trace"}
    # Kept: git-ignored, private to its owner, with every call and what it answered.
    runs = registry_path / RUNS_DIR
    assert (runs / ".gitignore").read_text() == "*\n"
    assert stat.S_IMODE(runs.stat().st_mode) == 0o700
    kept = runs / f"{outcome.run_id}.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    record = RunRecord.from_dict(json.loads(kept.read_text("utf-8")))
    assert record.status == "ok" and record.inputs == {"title": "Hello big World"}
    assert [c.result for c in record.calls] == [
        {"words": 3, "characters": 15, "lines": 1}, {"slug": "hello-big-world"}]
    assert dt.runs()[0].run_id == outcome.run_id
    assert "word_count" not in os.listdir(runs)  # never a tool's name


def test_a_refused_script_returns_line_numbered_findings_and_runs_nothing(
        dt: Dyntools) -> None:
    source = "import os\nslug = tools.slugify_text(inputs['t'])\nresult = os.getcwd()\n"
    outcome = dt.run_code(source, {"t": "x"})
    value = outcome.as_dict()
    assert value["status"] == "refused"
    assert [(f["line"], f["col"], f["code"]) for f in value["findings"]] == [
        (1, 8, "DT201"), (2, 27, "DT406")]
    assert value["trace"] == [] and value["result"] is None
    assert isinstance(outcome.error, GateRejected)
    assert dt.run_record(outcome.run_id).findings == value["findings"]


def test_a_failing_script_is_an_error_pointing_at_its_own_line(dt: Dyntools) -> None:
    source = "print('before')\nwords = tools.word_count(text='a b')\nratio = 1 / 0\nresult = {}\n"
    outcome = dt.run_code(source)
    value = outcome.as_dict()
    assert value["status"] == "error"
    assert value["error"]["reason"] == "runtime_error"
    assert "ZeroDivisionError" in value["error"]["message"]
    assert [3, "run", "ratio = 1 / 0"] in value["error"]["details"]["trace"]
    assert value["output"] == "before\n"
    assert [e["outcome"] for e in value["trace"]] == ["ok"]


def test_a_tool_error_is_host_tool_error_the_script_may_catch(dt: Dyntools) -> None:
    source = '''
from host import ToolError

caught = []
for name, call in (("missing", lambda: tools.no_such_tool(x=1)),
                   ("invalid", lambda: tools.word_count(texts="a"))):
    try:
        call()
    except ToolError as exc:
        caught.append([name, exc.reason])
result = {"caught": caught}
'''
    outcome = dt.run_code(source)
    assert outcome.status == "ok", outcome.as_dict()
    assert outcome.result == {"caught": [["missing", "unknown_tool"],
                                         ["invalid", "invalid_params"]]}
    assert [e["outcome"] for e in outcome.trace] == ["unknown_tool", "invalid_params"]


@pytest.mark.parametrize(("limits", "source", "reason"), [
    ({"max_tool_calls": 1}, TWO_CALLS, "run_limit"),
    ({"max_output": 100}, "for i in range(50):\n    print('x' * 10)\nresult = {}\n",
     "bad_result"),
    ({"timeout": 1}, "n = 0\nwhile True:\n    n += 1\nresult = {}\n", "timeout"),
])
def test_limits_end_the_run(dt: Dyntools, limits: dict[str, Any], source: str,
                            reason: str) -> None:
    outcome = dt.run_code(source, {"title": "a b"}, limits=limits)
    assert (outcome.status, outcome.as_dict()["error"]["reason"]) == ("error", reason)
    assert dt.run_record(outcome.run_id).limits[next(iter(limits))] == next(
        iter(limits.values()))


@pytest.mark.parametrize(("inputs", "limits"), [
    (["not", "a", "dict"], None),
    ({"x": math.nan}, None),
    ({"x": object()}, None),
    (None, {"timeout": 0}),
    (None, {"timeout": math.inf}),
    (None, {"max_tool_calls": -1}),
    (None, {"max_depth": 4}),
    (None, {"max_output": True}),
    (None, {"retries": 3}),
    (None, "fast"),
])
def test_bad_arguments_are_usage_errors_and_nothing_is_kept(
        dt: Dyntools, registry_path: Path, inputs: Any, limits: Any) -> None:
    with pytest.raises(UsageError):
        dt.run_code("result = {}\n", inputs, limits=limits)
    assert not (registry_path / RUNS_DIR).exists()


def test_a_script_reaches_what_its_caller_reaches_directly(dt: Dyntools) -> None:
    """The library's surface is the registry's current tools; an adapter's or the MCP
    server's is their catalog, hand-written tools included. Neither reaches more."""
    catalog = Catalog(dt, generate=False)
    catalog.add("add_numbers", lambda p: {"sum": p["a"] + p["b"]}, description="Adds.",
                params={"type": "object", "properties": {"a": {"type": "number"},
                                                         "b": {"type": "number"}}})
    source = ("from host import ToolError\ntry:\n    result = tools.add_numbers(a=1, b=2)\n"
              "except ToolError as exc:\n    result = {'refused': exc.reason}\n")
    assert dt.run_code(source).result == {"refused": "unknown_tool"}
    with_catalog = dt.run_code(source, tools=catalog)
    assert with_catalog.result == {"sum": 3}
    assert with_catalog.trace[0]["version"] is None  # hand-written: no version
    assert dt.run_record(with_catalog.run_id).surface == "catalog"


def test_a_result_that_is_not_json_is_an_error(dt: Dyntools) -> None:
    outcome = dt.run_code("result = {1, 2}\n")
    assert outcome.status == "error"
    assert outcome.as_dict()["error"]["reason"] == "bad_result"


def test_a_script_result_may_be_any_json_value(dt: Dyntools) -> None:
    assert dt.run_code("result = [1, 'two', None]\n").result == [1, "two", None]
    assert dt.run_code("result = inputs['n'] * 2\n", {"n": 21}).result == 42


def test_a_read_only_registry_still_runs_and_says_the_run_was_not_kept(
        registry_path: Path) -> None:
    os.chmod(registry_path, 0o500)
    try:
        with Dyntools(registry_path) as dt:
            outcome = dt.run_code("result = tools.word_count(text='a b')\n")
    finally:
        os.chmod(registry_path, 0o700)
    if os.geteuid() == 0:  # root writes through any mode: nothing to see here
        assert outcome.status == "ok"
        return
    assert outcome.status == "ok" and outcome.as_dict()["kept"] is False


def test_an_unexpected_failure_ends_the_run_as_an_error(dt: Dyntools,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from dyntools.codemode import runner

    def no_folder() -> None:
        raise FileNotFoundError("no usable temporary directory")

    monkeypatch.setattr(runner, "EmptyDirectory", no_folder)
    outcome = dt.run_code("result = {}\n")
    value = outcome.as_dict()
    assert (value["status"], value["error"]["reason"]) == ("error", "sandbox_error")
    assert "FileNotFoundError" in value["error"]["message"]
