"""`dyntools call` without click (dyntools/cli/call_run.py): every command line prints, and
exits, exactly as the click command does; the plain ones never import click.

Both ways run as the console script would, in fresh interpreters: `dyntools.cli.run()` (which
takes the fast path when it can) against `dyntools.cli.app.main()` (click, always).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dyntools.cli.call_run import CallArguments, fast_arguments
from dyntools.registry import Registry

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

PROBE = """
import json, sys
sys.argv = ["dyntools", *json.loads(sys.argv[1])]
if {click!r}:
    from dyntools.cli.app import main as entry
else:
    from dyntools.cli import run as entry
code = 0
try:
    entry()
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
sys.stdout.flush()
sys.stderr.write("\\n@@" + json.dumps([code, "click" in sys.modules]))
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("DYNTOOLS_")}


def _run(argv: list[str], cwd: Path, *, click: bool) -> tuple[int, str, str, bool]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(click=click), json.dumps(argv)],
                          capture_output=True, cwd=cwd, env=_env(), timeout=120, check=False)
    stderr, _, tail = done.stderr.decode().rpartition("\n@@")
    code, click_loaded = json.loads(tail)
    return code, done.stdout.decode(), stderr, click_loaded


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
    fast = _run(["call", *argv], folder, click=False)
    slow = _run(["call", *argv], folder, click=True)
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
                          capture_output=True, text=True, cwd=folder, env=_env(), timeout=120,
                          check=False)
    assert (done.returncode, json.loads(done.stdout), done.stderr) == (
        0, {"slug": "hello-world"}, "")
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    assert any(e.get("tool") == "slugify_text" and e.get("component") == "runtime"
               for e in events)


def _handles_sigterm(pid: int) -> bool:
    """True once dyntools installed its handlers (Python itself catches only SIGINT)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(next(line.split()[1] for line in status.splitlines()
                      if line.startswith("SigCgt:")), 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


def _has_child(pid: int) -> bool:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return children.exists() and children.read_text().strip() != ""


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_call_exits_cleanly(folder: Path, sig: int, code: int) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "dyntools", "call", "spin", "--registry", "reg", "--params",
         "{}", "--timeout", "60"], cwd=folder, env=_env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not (_handles_sigterm(process.pid) and _has_child(process.pid)):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.5)  # the worker is counting by now
        process.send_signal(sig)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == code
    assert (out, err.decode()) == (b"", f"dyntools: interrupted ({signal.Signals(sig).name})\n")


@pytest.mark.parametrize("click", [True, False])
def test_a_reader_that_goes_away_ends_the_call_quietly(folder: Path, click: bool) -> None:
    argv = ["call", *TOOL, "--params", json.dumps({"text": "word " * 20_000}), "--json"]
    process = subprocess.Popen(
        [sys.executable, "-c", PROBE.format(click=click), json.dumps(argv)],
        cwd=folder, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the call writes a byte
    err = process.stderr.read().decode()
    process.wait(timeout=60)
    assert err.rpartition("\n@@")[0] == "" and json.loads(err.rpartition("\n@@")[2])[0] == 1


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
    import click

    from dyntools.cli.app import main

    monkeypatch.chdir(folder)
    fast = fast_arguments(argv)
    if fast is None:
        return  # click's own, both ways
    command = main.get_command(click.Context(main), "call")
    assert command is not None
    context = command.make_context("call", list(argv))  # click raising here fails the test
    assert fast == CallArguments(**context.params)
