"""`dyntools check` without click (dyntools/cli/check_run.py): every command line prints,
and exits, exactly as the click command does; the plain ones never import click.

Both ways run as the console script would, in fresh interpreters: `dyntools.cli.run()` (which
takes the fast path when it can) against `dyntools.cli.app.main()` (click, always).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dyntools.cli.check_run import CheckArguments, fast_arguments
from tests.cli_probe import (
    click_params,
    interrupt,
    interrupted_line,
    probe_argv,
    run_entry,
    split_probe_stderr,
)

REPO = Path(__file__).resolve().parents[2]
GOOD = (REPO / "dyntools" / "generators" / "templates" / "slugify_text.py").read_text("utf-8")
EVIL = GOOD.replace("    return {", "    eval(params['text'])\n    return {")

@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "good.py").write_text(GOOD, "utf-8")
    (tmp_path / "evil.py").write_text(EVIL, "utf-8")
    (tmp_path / "-x.py").write_text(GOOD, "utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "strict.toml").write_text(
        (REPO / "allowlist.toml").read_text("utf-8").replace('"re",', "", 1), "utf-8")
    (tmp_path / "broken.toml").write_text("[limits\n", "utf-8")
    return tmp_path


PLAIN = [
    ["good.py"], ["evil.py"], ["good.py", "evil.py"], ["--json", "good.py"],
    ["evil.py", "--json"], ["--format", "sarif", "evil.py"], ["--format=json", "good.py"],
    ["--json", "--format", "text", "evil.py"], ["--format", "json", "--format", "text",
                                                "good.py"],
    ["missing.py"], ["sub"], ["good.py", "missing.py"], ["-"], ["--", "-x.py"],
    ["--allowlist", "strict.toml", "good.py"], ["--allowlist=strict.toml", "good.py"],
    ["--allowlist", "nowhere.toml", "good.py"], ["--allowlist", "broken.toml", "good.py"],
    ["/dev/null"],
]
TO_CLICK = [
    [], ["--help"], ["-h"], ["--bogus", "good.py"], ["--format", "xml", "good.py"],
    ["--format"], ["--format", "--json", "good.py"], ["--allowlist", "sub", "good.py"],
    ["--json=1", "good.py"], ["--allowlist"], ["--format="],
]


@pytest.mark.parametrize("argv", PLAIN + TO_CLICK, ids=lambda a: " ".join(a) or "(none)")
def test_both_ways_print_and_exit_alike(folder: Path, argv: list[str]) -> None:
    stdin = EVIL.encode() if argv == ["-"] else b""
    fast = run_entry(["check", *argv], folder, click=False, stdin=stdin)
    slow = run_entry(["check", *argv], folder, click=True, stdin=stdin)
    assert fast[:3] == slow[:3]
    assert fast[3] is (argv not in PLAIN or "Error:" in fast[2])  # click only to say why


def test_plain_command_lines_parse_as_click_would(folder: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)
    assert fast_arguments(["a.py", "--format", "sarif", "--json"]) == CheckArguments(
        ("a.py",), "sarif", None)
    assert fast_arguments(["--json", "a.py", "b.py"]) == CheckArguments(
        ("a.py", "b.py"), "json", None)
    assert fast_arguments(["--", "--json"]) == CheckArguments(("--json",), "text", None)
    assert all(fast_arguments(argv) is None for argv in TO_CLICK)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_check_exits_cleanly(sig: int, code: int) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", "from dyntools.cli import run; import sys; "
         "sys.argv = ['dyntools', 'check', '-']; run()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = interrupt(process, sig)  # once its handlers are in, it waits on stdin
    assert (process.returncode, out, err) == (code, b"", interrupted_line(sig))


@pytest.mark.parametrize("click", [True, False])
def test_a_reader_that_goes_away_ends_the_check_quietly(folder: Path, click: bool) -> None:
    argv = ["dyntools", "check", "--json", *(["good.py", "evil.py"] * 50)]
    process = subprocess.Popen(
        probe_argv(argv[1:], click=click), cwd=folder, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the check writes a byte
    err, code, _ = split_probe_stderr(process.stderr.read().decode())
    process.wait(timeout=60)
    assert (err, code) == ("", 1)


TOKENS = ["--json", "--format", "json", "sarif", "text", "xml", "--allowlist", "strict.toml",
          "sub", "--", "-", "good.py", "evil.py", "-x.py", "--bogus", "-h", "--format=json",
          "--allowlist=strict.toml", "--json=1", "--format=", "--allowlist="]


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TOKENS), max_size=7))
def test_a_command_line_the_fast_path_takes_means_the_same_to_click(
        folder: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    monkeypatch.chdir(folder)
    fast = fast_arguments(argv)
    if fast is None:
        return  # click's own, both ways
    values = click_params("check", argv)  # click raising here fails the test
    output = "json" if values["as_json"] and values["fmt"] is None else (values["fmt"] or "text")
    assert fast == CheckArguments(tuple(values["files"]), output, values["allowlist"])
