"""Issue 28: human output for humans. Log events on stderr are text a person reads when
stderr is a terminal and JSON lines when it is not, unless `--log-format text|json` (any
command, or the group) or DYNTOOLS_LOG_FORMAT says otherwise; the audit log stays JSON.
Registry problems are one readable line each, naming the reason. Through the real CLI, with
a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import dyntools_argv
from tests.support.environment import env_without_dyntools


def run_on_a_terminal(argv: list[str], cwd: Path,
                      env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`dyntools ARGV` with stderr a pseudo-terminal: exit code, stdout, what the terminal
    showed."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(dyntools_argv(argv), cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=follower,
                               env=env if env is not None else env_without_dyntools())
    os.close(follower)
    shown = bytearray()
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    out, _ = process.communicate(timeout=120)
    os.close(leader)
    return process.returncode, out.decode(), shown.decode().replace("\r\n", "\n")


def run_piped(argv: list[str], cwd: Path,
              env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = subprocess.run(dyntools_argv(argv), cwd=cwd, capture_output=True, timeout=120,
                          env=env if env is not None else env_without_dyntools(), check=False)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


@pytest.fixture(scope="module")
def unsigned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry whose one tool carries no signature, and a trusted key that never signed."""
    root = tmp_path_factory.mktemp("unsigned")
    code, _, err = run_piped(["ensure", "slugify_text", "--registry", str(root / "reg")], root)
    assert code == 0, err
    assert run_piped(["keygen", str(root / "alice.key")], root)[0] == 0
    return root


def _keys(root: Path) -> list[str]:
    return ["--registry", str(root / "reg"), "--trusted-keys", str(root / "alice.key.pub")]


def test_a_terminal_gets_one_readable_line_per_problem(unsigned: Path) -> None:
    code, out, shown = run_on_a_terminal(["list", *_keys(unsigned)], unsigned)
    assert code == 0
    assert "slugify_text" in out
    assert "{" not in shown, shown  # no JSON object on the terminal
    assert "dyntools: warning: 2 problem(s) in registry" in shown
    assert "slugify_text v1: unsigned: no trusted signature" in shown
    assert "slugify_text: no_chain: slugify_text has no decision chain" in shown


def test_the_error_names_the_reason_and_nothing_is_json(unsigned: Path) -> None:
    code, out, shown = run_on_a_terminal(
        ["call", "slugify_text", "--params", '{"text": "a"}', *_keys(unsigned)], unsigned)
    assert code == 16 and out == ""
    assert "unsigned: no trusted signature" in shown
    assert "Traceback" not in shown and '{"component"' not in shown


def test_a_pipe_gets_json_lines(unsigned: Path) -> None:
    code, _, err = run_piped(["list", *_keys(unsigned)], unsigned)
    assert code == 0
    event = json.loads(err.strip().splitlines()[0])
    assert event["event"] == "registry.problems"
    assert "slugify_text v1: unsigned: no trusted signature: v1 carries no signature, and " \
           "trusted keys are configured" in event["problems"]


@pytest.mark.parametrize("how", ["option", "group", "variable"])
def test_the_choice_overrides_the_stream(unsigned: Path, how: str) -> None:
    env = env_without_dyntools()
    argv = ["list", *_keys(unsigned)]
    if how == "option":
        argv += ["--log-format", "json"]
    elif how == "group":
        argv = ["--log-format", "json", *argv]
    else:
        env["DYNTOOLS_LOG_FORMAT"] = "json"
    _, _, shown = run_on_a_terminal(argv, unsigned, env)
    assert json.loads(shown.strip().splitlines()[0])["event"] == "registry.problems"
    # and text where JSON would be the default
    env["DYNTOOLS_LOG_FORMAT"] = "text"
    _, _, err = run_piped(["list", *_keys(unsigned)], unsigned, env)
    assert err.startswith("dyntools: warning: 2 problem(s)"), err


def test_an_unknown_format_is_a_usage_error(unsigned: Path) -> None:
    env = {**env_without_dyntools(), "DYNTOOLS_LOG_FORMAT": "xml"}
    code, _, err = run_piped(["list", "--registry", str(unsigned / "reg")], unsigned, env)
    assert code == 2 and "--log-format" in err and "Traceback" not in err
    code, _, err = run_piped(["call", "slugify_text", "--log-format", "yaml"], unsigned)
    assert code == 2 and "'yaml' is not one of 'text', 'json'" in err


def test_the_audit_log_stays_json(tmp_path: Path) -> None:
    code, _, shown = run_on_a_terminal(
        ["ensure", "slugify_text", "--registry", str(tmp_path / "reg"), "--log-level", "info"],
        tmp_path)
    assert code == 0
    assert "dyntools: info: slugify_text station" in shown and '{"' not in shown
    events = [json.loads(line) for line in
              (tmp_path / "reg" / "audit.log").read_text().splitlines()]
    assert any(e["event"] == "pipeline.station" for e in events)


def test_tool_controlled_text_in_a_log_line_is_escaped(tmp_path: Path) -> None:
    from dyntools.base.logtext import render_text

    line = render_text("warning", {"event": "registry.quarantined", "tool": "t",
                                   "reason_code": "gate", "reason": "bad \x1b[31m\u202ename"})
    assert "\x1b" not in line and "\u202e" not in line
    assert line.startswith("dyntools: warning: t quarantined: gate: bad ")


def _visible_lines(shown: str) -> list[str]:
    """What a terminal leaves on each line: the text after its last carriage return, without
    colours and erase codes (enough for lines that are only rewritten from the start)."""
    import re

    return [re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", line.rsplit("\r", 1)[-1])
            for line in shown.split("\n")]


def test_a_warning_during_a_live_station_starts_its_own_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on: the model is unreachable
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, _, shown = run_on_a_terminal(
        ["ensure", "word_stats", "--registry", str(tmp_path / "reg"), "--generator", "openai",
         "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "--retries", "0"],
        tmp_path)
    assert code == 13, shown
    warnings = [line for line in _visible_lines(shown) if "warning" in line]
    assert warnings and all(line.startswith("dyntools: warning: word_stats model failed")
                            for line in warnings), shown
    assert any(line.lstrip().startswith("FAIL generate") for line in _visible_lines(shown))
