"""`dyntools health` and `dyntools repair` (issue 32) as whole command lines, in fresh
interpreters: exit codes, the report's JSON keys, SARIF, a failed call named by its id, and
tool-controlled text escaped on the terminal."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from dyntools.registry import Registry
from tests.support.cli import run_cli
from tests.support.environment import env_without_dyntools
from tests.support.missing_layer import env_without_seccomp

SLUG = '''"""Turns a title into a URL slug."""
import re

NAME = "slug"
DESCRIPTION = "Turns a title into a URL slug."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "Hello World"}, "result": {"slug": "hello-world"}}]


def run(params):
    if params["text"] == "boom":
        raise ValueError("boom")
    return {"slug": re.sub(r"[^a-z0-9]+", "-", params["text"].lower())}
'''
FIXED = SLUG.replace('.lower())}', '.lower()).strip("-")}')
KEYS = {"ok", "registry", "python", "allowlist", "checked", "regressions", "unverified",
        "duplicates", "usage", "unused", "stale_pending", "drift", "duration_ms"}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    Registry.open(tmp_path / "reg").add_version("slug", SLUG, {"generator": "file"})
    (tmp_path / "fixed.py").write_text(FIXED)
    (tmp_path / "same.py").write_text(SLUG)
    return tmp_path


def health(folder: Path, *argv: str, env: dict[str, str] | None = None) -> tuple[int, Any,
                                                                                    str]:
    code, out, err = run_cli(["health", "--registry", "reg", *argv], folder, env=env)
    return code, out, err


def test_a_healthy_registry_exits_0_with_every_key(folder: Path) -> None:
    code, out, err = health(folder, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert set(report) == KEYS and report["ok"] is True
    code, out, _ = health(folder)
    assert code == 0 and "result: ok" in out and "regressions: none" in out


def test_a_regression_exits_1_and_shows_in_text_json_and_sarif(folder: Path) -> None:
    # the version promised something it no longer does (an escape sequence in it, too)
    promised = {"params": {"text": "x"}, "result": {"slug": "\x1b[2J"}}
    Registry.open(folder / "reg").add_version(
        "shout", SLUG.replace('NAME = "slug"', 'NAME = "shout"'),
        {"generator": "file", "verification": {"examples": [promised]}})
    code, out, _ = health(folder, "--json")
    assert code == 1
    (entry,) = json.loads(out)["regressions"]
    assert (entry["tool"], entry["version"], entry["got"]) == ("shout", 1, {"slug": "x"})
    code, out, _ = health(folder)
    assert code == 1 and "regressions (1)" in out and "result: FAIL" in out
    assert "\x1b" not in out and "\\u001b[2J" in out
    code, out, _ = health(folder, "--format", "sarif")
    assert code == 1
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    (result,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "health/regression"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(
        "/shout/v1.py")


def test_a_sandbox_below_its_minimum_exits_10_unless_allowed(folder: Path) -> None:
    env = env_without_seccomp(folder / "site")
    code, out, err = health(folder, "--json", env=env)
    assert code == 10, err
    assert json.loads(out)["unverified"][0]["reason"] == "layer_unavailable"
    assert "could not run here" in err
    code, _, err = health(folder, "--allow-weaker-sandbox", env=env)
    assert code == 0, err


@pytest.mark.parametrize("argv", [["--since", "soon"], ["--since", "0d"],
                                  ["--stale-days", "-1"], ["--jobs", "0"],
                                  ["--registry", "missing"], ["--timeout", "nan"]])
def test_bad_options_exit_2(folder: Path, argv: list[str]) -> None:
    code, _, err = run_cli(["health", "--registry", "reg", *argv], folder)
    assert code == 2, err
    assert "Traceback" not in err


def test_repair_from_a_named_failed_call_exit_codes(folder: Path) -> None:
    code, _, err = run_cli(["call", "slug", "--registry", "reg", "--params",
                            '{"text": "boom"}'], folder)
    assert code == 4
    call_id = err.split("call ", 1)[1].split(":", 1)[0]
    assert f"dyntools repair slug --call {call_id}" in err
    audit = [json.loads(line) for line in (folder / "reg" / "audit.log").read_text()
             .splitlines()]
    (execute,) = [e for e in audit if e.get("station") == "execute"]
    assert (execute["id"], execute["params_kept"]) == (call_id, True)
    # the same code again: no attempt passes (12), nothing is written
    before = (folder / "reg" / "slug" / "manifest.json").read_bytes()
    code, _, err = run_cli(["repair", "slug", "--registry", "reg", "--call", call_id,
                            "--expected", '{"slug": "boom"}', "--generator", "file",
                            "--from", "same.py"], folder)
    assert code == 12, err
    assert "attempt 1 (verify)" in err and "DR102" in err
    assert (folder / "reg" / "slug" / "manifest.json").read_bytes() == before
    # nothing to repair, and bad input: 2
    code, _, err = run_cli(["repair", "slug", "--registry", "reg", "--params",
                            '{"text": "Hello World"}', "--expected",
                            '{"slug": "hello-world"}', "--generator", "file", "--from",
                            "fixed.py"], folder)
    assert code == 2 and "nothing to repair" in err
    code, _, err = run_cli(["repair", "slug", "--registry", "reg", "--expected", "{}"],
                           folder)
    assert code == 2 and "--params" in err


def test_repair_activates_0_or_waits_17(folder: Path) -> None:
    argv = ["repair", "slug", "--registry", "reg", "--params", '{"text": "Hi!"}',
            "--expected", '{"slug": "hi"}', "--generator", "file", "--from", "fixed.py"]
    code, out, err = run_cli([*argv, "--require-approval", "--json"], folder)
    assert code == 17, err
    assert json.loads(out)["status"] == "pending"
    code, out, err = run_cli(argv, folder)
    assert code == 0, err
    assert "slug v3: repaired v1" in out
    code, out, _ = run_cli(["call", "slug", "--registry", "reg", "--params",
                            '{"text": "Hi!"}'], folder)
    assert json.loads(out) == {"slug": "hi"}
    code, out, err = health(folder, "--json")
    assert code == 0, err
    # the operator drops the counterexample on purpose: the registry's policy, no reviewer
    code, out, err = run_cli(["ensure", "slug", "--registry", "reg", "--new-version",
                              "--contract-change", "--generator", "file", "--from",
                              "same.py"], folder)
    assert code == 0, err


def test_health_reads_the_audit_log_it_is_given(folder: Path) -> None:
    log = folder / "elsewhere.log"
    env = {**env_without_dyntools(), "DYNTOOLS_AUDIT_LOG": str(log)}
    for text in ("a", "b"):
        assert run_cli(["call", "slug", "--registry", "reg", "--params",
                        json.dumps({"text": text})], folder, env=env)[0] == 0
    _, out, _ = health(folder, "--json", env=env)
    assert json.loads(out)["usage"]["tools"]["slug"]["calls"] == 2
    _, out, _ = health(folder, "--json", "--audit-log", os.devnull)
    assert json.loads(out)["usage"]["tools"] == {}


def test_a_hostile_reason_is_kept_for_the_reviewer_and_shown_escaped(folder: Path) -> None:
    hostile = "\x1b]52;c;cm0gLXJmIC8K\x07\x1b[2J<script>x</script>\u202e"
    code, out, err = run_cli(["repair", "slug", "--registry", "reg", "--params",
                              '{"text": "Hi!"}', "--expected", '{"slug": "hi"}', "--reason",
                              hostile, "--generator", "file", "--from", "fixed.py",
                              "--require-approval"], folder)
    assert code == 17, err
    assert "pending approval (repair_review)" in out
    code, out, err = run_cli(["show", "slug", "--registry", "reg", "--version", "2"], folder)
    assert code == 0, err
    assert "\\x1b]52" in out and "\\u202e" in out  # what the report holds, printed as text
    assert "\x1b" not in out + err and "\u202e" not in out + err
