"""`dyntools call` without click (dyntools/cli/call_run.py): every command line prints, and
exits, exactly as the click command does; the plain ones never import click.

Both ways run as the console script would, in fresh interpreters: `dyntools.cli.run()` (which
takes the fast path when it can) against `dyntools.cli.app.main()` (click, always).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dyntools.cli.call_run import CallArguments, fast_arguments
from dyntools.registry import Registry
from tests.cli_probe import (
    click_params,
    env_without_dyntools,
    handles_sigterm,
    interrupt,
    interrupted_line,
    probe_argv,
    run_entry,
    split_probe_stderr,
)

REPO = Path(__file__).resolve().parents[2]
SLUGIFY = (REPO / "dyntools" / "generators" / "templates" / "slugify_text.py").read_bytes()
SPIN = b'''"""Counts for ever."""

NAME = "spin"
DESCRIPTION = "Counts for ever."
PARAMS = {"type": "object", "properties": {}}


def run(params):
    n = 0
    while n >= 0:
        n += 1
    return {"n": n}
'''

@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("call")
    registry = Registry.open(root / "reg")
    registry.add_version("slugify_text", SLUGIFY, {"generator": "test"})
    registry.add_version("spin", SPIN, {"generator": "test"})
    (root / "sub").mkdir()
    (root / "broken.toml").write_text("[limits\n", "utf-8")
    return root


HELLO = '{"text": "Hello World"}'
TOOL = ["slugify_text", "--registry", "reg"]
PLAIN = [
    [*TOOL, "--params", HELLO],
    ["--registry=reg", "slugify_text", f"--params={HELLO}", "--json"],
    ["--params", HELLO, "--registry", "reg", "--", "slugify_text"],
    [*TOOL, "--params", '{"text": 1}'],
    [*TOOL, "--params", '{"text": 1}', "--json"],
    [*TOOL, "--params", '{"text"'],
    [*TOOL, "--params", "[1]"],
    [*TOOL, "--params", HELLO, "--timeout", "2.5", "--log-level", "error"],
    [*TOOL, "--params", HELLO, "--timeout", "nan"],
    [*TOOL, "--params", HELLO, "--timeout=-1"],
    [*TOOL, "--params", HELLO, "--require-layers", "bogus"],
    [*TOOL, "--params", HELLO, "--require-layers", "restricted,seccomp"],
    [*TOOL, "--params", HELLO, "--allowlist", "broken.toml"],
    [*TOOL, "--params", HELLO, "--allowlist", "nowhere.toml"],
    [*TOOL, "--params", HELLO, "--executor", "local", "--json"],
    [*TOOL, "--params", HELLO, "--capabilities", "nowhere.toml"],
    [*TOOL, "--params", HELLO, "--trusted-keys", "nowhere.keys"],
    [*TOOL, "--params", HELLO, "--audit-log", "audit.jsonl"],
    [*TOOL, "--params", HELLO, "--params", '{"text": "second wins"}'],
    ["missing_tool", "--registry", "reg", "--params", "{}"],
    ["Bad Name", "--registry", "reg", "--params", "{}"],
    ["slugify_text", "--registry", "nowhere", "--params", HELLO],
    ["slugify_text", "--registry", "broken.toml", "--params", HELLO],
]
TO_CLICK = [
    [], ["--help"], ["-h"], ["slugify_text"], ["--params", "{}"],
    ["a", "b", "--params", "{}"], [*TOOL, "--params"], [*TOOL, "--params", "{}", "--bogus"],
    [*TOOL, "--params", "{}", "--timeout", "soon"], [*TOOL, "--params", "{}", "--timeout"],
    [*TOOL, "--params", "{}", "--log-level", "loud"],
    [*TOOL, "--params", "{}", "--executor", "k8s"],
    [*TOOL, "--params", "{}", "--allowlist", "sub"], [*TOOL, "--params", "{}", "--json=1"],
    [*TOOL, "--params", "{}", "--registry"], [*TOOL, "--params", "-1"],
]


@pytest.mark.parametrize("argv", PLAIN + TO_CLICK, ids=lambda a: " ".join(a) or "(none)")
def test_both_ways_print_and_exit_alike(folder: Path, argv: list[str]) -> None:
    fast = run_entry(["call", *argv], folder, click=False)
    slow = run_entry(["call", *argv], folder, click=True)
    assert fast[:3] == slow[:3]
    assert fast[3] is (argv not in PLAIN or "Error:" in fast[2])  # click only to say why


def test_plain_command_lines_parse_as_click_would(folder: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)
    assert fast_arguments(["t", "--params", "{}", "--timeout", "1e1", "--json"]) == \
        CallArguments("t", "{}", timeout=10.0, as_json=True)
    assert fast_arguments(["--", "--json", "--params={}"]) is None  # two names after `--`
    assert fast_arguments(["--params={}", "--", "--json"]) == CallArguments("--json", "{}")
    assert all(fast_arguments(argv) is None for argv in TO_CLICK)


def test_the_console_script_calls_and_loses_no_audit_event(folder: Path) -> None:
    audit = folder / "console.jsonl"
    done = subprocess.run([sys.executable, "-m", "dyntools", "call", *TOOL, "--params", HELLO,
                           "--audit-log", str(audit)],
                          capture_output=True, text=True, cwd=folder,
                          env=env_without_dyntools(), timeout=120, check=False)
    assert (done.returncode, json.loads(done.stdout), done.stderr) == (
        0, {"slug": "hello-world"}, "")
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    assert any(e.get("tool") == "slugify_text" and e.get("component") == "runtime"
               for e in events)


def _has_child(pid: int) -> bool:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return children.exists() and children.read_text().strip() != ""


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_call_exits_cleanly(folder: Path, sig: int, code: int) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "dyntools", "call", "spin", "--registry", "reg", "--params",
         "{}", "--timeout", "60"], cwd=folder, env=env_without_dyntools(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = interrupt(process, sig, settle_s=0.5,  # the worker is counting by then
                         ready=lambda pid: handles_sigterm(pid) and _has_child(pid))
    assert (process.returncode, out, err) == (code, b"", interrupted_line(sig))


@pytest.mark.parametrize("click", [True, False])
def test_a_reader_that_goes_away_ends_the_call_quietly(folder: Path, click: bool) -> None:
    argv = ["call", *TOOL, "--params", json.dumps({"text": "word " * 20_000}), "--json"]
    process = subprocess.Popen(
        probe_argv(argv, click=click), cwd=folder, env=env_without_dyntools(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the call writes a byte
    err, code, _ = split_probe_stderr(process.stderr.read().decode())
    process.wait(timeout=60)
    assert (err, code) == ("", 1)


TOKENS = ["slugify_text", "other", "--params", "{}", '{"text": "a"}', "--registry", "reg",
          "--allowlist", "sub", "broken.toml", "--timeout", "2", "nan", "soon", "--log-level",
          "error", "loud", "--executor", "local", "ray", "--json", "--json=1", "--", "-",
          "-h", "--bogus", "--params={}", "--timeout=3", "--log-level=info", "--ray-address",
          "auto", "--trusted-keys", "--audit-log", "a.log", "--capabilities", "--registry=",
          "--require-layers", "all", "--executor=ray", " reg", " 2 ", "--timeout= 1e1"]


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TOKENS), max_size=9))
def test_a_command_line_the_fast_path_takes_means_the_same_to_click(
        folder: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    monkeypatch.chdir(folder)
    fast = fast_arguments(argv)
    if fast is None:
        return  # click's own, both ways
    assert fast == CallArguments(**click_params("call", argv))  # click raising fails it
