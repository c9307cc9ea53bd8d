"""`dyntools run`, `resume` and `promote` as whole command lines, each in a fresh process: the
exit codes, the JSON keys, findings printed as `check` prints them, a wait resumed from
another process, a promoted script called by name, the audit log's links, fail closed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.codemode.conftest import TWO_CALLS, registry_with
from tests.support.cli import run_cli
from tests.support.missing_layer import env_without_seccomp


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    return registry_with(tmp_path / "reg", pending=("slugify_text",))


def script(tmp_path: Path, text: str = TWO_CALLS, name: str = "job.py") -> Path:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


def events(registry: Path, name: str) -> list[dict[str, Any]]:
    lines = (registry / "audit.log").read_text("utf-8").splitlines()
    return [e for e in map(json.loads, lines) if e.get("event") == name]


def test_wait_approve_resume_promote_call(tmp_path: Path, registry: Path) -> None:
    job = script(tmp_path)
    base = ["--registry", str(registry)]
    code, out, err = run_cli(["run", str(job), "--input", '{"title": "Hello big World"}',
                              *base], tmp_path)
    assert code == 17, (out, err)
    assert "counted 3" in err and "dyntools approve slugify_text 1" in err
    run_id = err.split("run ", 1)[1].split(" ", 1)[0]
    assert f"dyntools resume {run_id}" in err
    assert run_cli(["approve", "slugify_text", "1", *base], tmp_path)[0] == 0
    code, out, err = run_cli(["resume", run_id, "--json", *base], tmp_path)
    assert code == 0, err
    value = json.loads(out)
    assert set(value) == {"status", "run_id", "result", "output", "trace"}
    assert (value["status"], value["run_id"]) == ("ok", run_id)
    assert value["result"] == {"words": 3, "slug": "hello-big-world"}
    assert value["output"] == "slugged\n"
    assert [(e["tool"], e["version"], e["outcome"]) for e in value["trace"]] == [
        ("word_count", 1, "ok"), ("slugify_text", 1, "ok")]
    code, out, err = run_cli(["resume", run_id, *base], tmp_path)
    assert code == 2 and "not waiting" in err
    code, out, err = run_cli(["promote", run_id, "title_facts", "--json", *base], tmp_path)
    assert code == 0, err
    promoted = json.loads(out)
    assert (promoted["run_id"], promoted["version"], promoted["status"]) == (
        run_id, 1, "approved")
    assert promoted["provenance"]["run_id"] == run_id
    caps = tmp_path / "caps.toml"
    caps.write_text('[tools]\nallow = ["word_count", "slugify_text"]\n', "utf-8")
    code, out, err = run_cli(["call", "title_facts", "--params", '{"title": "Hello big World"}',
                              "--capabilities", str(caps), *base], tmp_path)
    assert (code, json.loads(out)) == (0, {"words": 3, "slug": "hello-big-world"}), err
    # The audit log links the run to the version it became.
    linked = events(registry, "run.promoted")
    assert [(e["run_id"], e["tool"], e["version"]) for e in linked] == [
        (run_id, "title_facts", 1)]
    assert {e["status"] for e in events(registry, "run.finished")
            if e["run_id"] == run_id} == {"waiting", "ok"}
    assert [e["tool"] for e in events(registry, "run.tool_call")
            if e["run_id"] == run_id] == ["word_count", "slugify_text"]


def test_a_refused_script_prints_findings_as_check_does(tmp_path: Path,
                                                        registry: Path) -> None:
    job = script(tmp_path, "import os\nvalue = tools.word_count\nresult = {}\n", "bad.py")
    code, out, err = run_cli(["run", str(job), "--registry", str(registry)], tmp_path)
    assert code == 1, err
    assert out.splitlines() == [
        f"{job}:1:8: DT201 module os is not allowed: os gives access to the file system, "
        "processes and the environment",
        f"{job}:2:9: DT406 tools.word_count must be called, as tools.NAME(key=value, **more): "
        "the host answers a call, nothing else"]
    code, out, _ = run_cli(["run", "-", "--json", "--registry", str(registry)], tmp_path,
                           stdin=job.read_bytes())
    value = json.loads(out)
    assert (code, value["status"]) == (1, "refused")
    assert [(f["line"], f["col"], f["code"]) for f in value["findings"]] == [
        (1, 8, "DT201"), (2, 9, "DT406")]


@pytest.mark.parametrize(("text", "extra", "code", "reason"), [
    ("result = 1 / 0\n", [], 4, "runtime_error"),
    ("a = tools.word_count(text='a')\nb = tools.word_count(text='b')\nresult = {}\n",
     ["--max-tool-calls", "1"], 11, "run_limit"),
    ("n = 0\nwhile True:\n    n += 1\nresult = {}\n", ["--timeout", "1"], 5, "timeout"),
])
def test_failures_exit_with_calls_codes(tmp_path: Path, registry: Path, text: str,
                                        extra: list[str], code: int, reason: str) -> None:
    job = script(tmp_path, text)
    got, out, err = run_cli(["run", str(job), "--json", "--registry", str(registry), *extra],
                            tmp_path)
    value = json.loads(out)
    assert (got, value["status"], value["error"]["reason"]) == (code, "error", reason), err


def test_check_script_gives_scripts_findings_as_text_and_sarif(tmp_path: Path) -> None:
    good = script(tmp_path, TWO_CALLS, "good.py")
    bad = script(tmp_path, "n = tools.word_count('a')\n", "bad.py")
    code, out, err = run_cli(["check", "--script", str(good)], tmp_path)
    assert (code, out.strip()) == (0, f"{good}: accepted"), err
    code, out, err = run_cli(["check", str(good)], tmp_path)  # not a tool file
    assert code == 1 and "NAME" in out, err
    code, out, err = run_cli(["check", "--script", "--format", "sarif", str(bad)], tmp_path)
    assert code == 1, err
    results = json.loads(out)["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"DT406"}
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
               for r in results)


HOSTILE_TEXT = "\x1b]0;owned\x07 \x9b31m \u202egnp.exe \x1b[2J"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


@pytest.mark.parametrize("as_json", [True, False])
def test_hostile_text_never_reaches_the_terminal_raw(tmp_path: Path, registry: Path,
                                                     as_json: bool) -> None:
    """A script's result and output (a tool's text passed along) are escaped on stdout and
    stderr alike, with --json and without."""
    job = script(tmp_path, "t = inputs['t']\nprint(t)\nresult = {'text': t}\n")
    argv = ["run", str(job), "--input", json.dumps({"t": HOSTILE_TEXT}), "--registry",
            str(registry), *(["--json"] if as_json else [])]
    code, out, err = run_cli(argv, tmp_path)
    assert code == 0, err
    assert not [c for c in RAW if c in out or c in err], (out, err)
    shown = json.loads(out)
    assert (shown["result"] if as_json else shown) == {"text": HOSTILE_TEXT}


@pytest.mark.parametrize("argv", [
    ["--input", "[1, 2]"],
    ["--input", "{"],
    ["--max-depth", "9"],
    ["--timeout", "0"],
])
def test_bad_options_are_usage_errors(tmp_path: Path, registry: Path, argv: list[str]) -> None:
    job = script(tmp_path, "result = {}\n")
    code, _, err = run_cli(["run", str(job), "--registry", str(registry), *argv], tmp_path)
    assert code == 2, err
    assert "Traceback" not in err


def test_unknown_runs_and_refused_promotions(tmp_path: Path, registry: Path) -> None:
    base = ["--registry", str(registry)]
    code, _, err = run_cli(["resume", "0123456789abcdef", *base], tmp_path)
    assert code == 2 and "no run 0123456789abcdef" in err
    code, _, err = run_cli(["resume", "../../etc/passwd", *base], tmp_path)
    assert code == 2 and "is not a run id" in err
    code, _, err = run_cli(["resume", "0123456789abcdef", "--timeout", "0", *base], tmp_path)
    assert code == 2 and "timeout must be" in err
    job = script(tmp_path, "total = 1\ndef f():\n    return total\nresult = {'v': f()}\n")
    code, out, err = run_cli(["run", str(job), "--json", *base], tmp_path)
    run_id = json.loads(out)["run_id"]
    code, _, err = run_cli(["promote", run_id, "reads_total", *base], tmp_path)
    assert code == 13 and "reads the script variable(s) 'total'" in err
    code, _, err = run_cli(["promote", run_id, "Bad Name", *base], tmp_path)
    assert code == 2


def test_promote_waits_for_a_reviewer_when_asked(tmp_path: Path, registry: Path) -> None:
    base = ["--registry", str(registry)]
    job = script(tmp_path, "result = {'double': inputs['n'] * 2}\n")
    _, out, _ = run_cli(["run", str(job), "--input", '{"n": 4}', "--json", *base], tmp_path)
    run_id = json.loads(out)["run_id"]
    code, out, err = run_cli(["promote", run_id, "double_it", "--require-approval", *base],
                             tmp_path)
    assert code == 17, err
    assert "dyntools approve double_it 1" in out


def test_run_fails_closed_below_the_minimum(tmp_path: Path, registry: Path) -> None:
    env = env_without_seccomp(tmp_path / "no-seccomp")
    job = script(tmp_path, "result = {'n': inputs['n']}\n")
    argv = ["run", str(job), "--input", '{"n": 1}', "--registry", str(registry)]
    code, out, err = run_cli(argv, tmp_path, env=env)
    assert code == 10, (out, err)
    assert "weaker than the default minimum" in err and "--allow-weaker-sandbox" in err
    code, out, err = run_cli([*argv, "--allow-weaker-sandbox"], tmp_path, env=env)
    assert (code, json.loads(out)) == (0, {"n": 1}), err
