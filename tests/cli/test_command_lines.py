"""`dyntools check` and `dyntools call` as whole command lines, through the console script in
fresh interpreters: one parser (click) reads every line, and each prints and exits as it did
when the plain lines had a parser of their own (the exit codes and the messages below are
those of that time); SIGINT exits 130 and SIGTERM 143, and a reader that goes away ends the
command quietly."""

from __future__ import annotations

import ast
import json
import signal
import subprocess
from pathlib import Path

import pytest

import dyntools.cli
from dyntools.registry import Registry
from tests.support.cli import (
    dyntools_argv,
    handles_sigterm,
    interrupt,
    interrupted_line,
    run_cli,
)
from tests.support.environment import env_without_dyntools

REPO = Path(__file__).resolve().parents[2]
SLUGIFY = (REPO / "dyntools" / "generators" / "templates" / "slugify_text.py").read_text("utf-8")
EVIL = SLUGIFY.replace("    return {", "    eval(params['text'])\n    return {")
SPIN = '''"""Counts for ever."""

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
    root = tmp_path_factory.mktemp("lines")
    (root / "good.py").write_text(SLUGIFY, "utf-8")
    (root / "evil.py").write_text(EVIL, "utf-8")
    (root / "-x.py").write_text(SLUGIFY, "utf-8")
    (root / "sub").mkdir()
    (root / "strict.toml").write_text(
        (REPO / "allowlist.toml").read_text("utf-8").replace('"re",', "", 1), "utf-8")
    (root / "broken.toml").write_text("[limits\n", "utf-8")
    registry = Registry.open(root / "reg")
    registry.add_version("slugify_text", SLUGIFY.encode(), {"generator": "test"})
    registry.add_version("spin", SPIN.encode(), {"generator": "test"})
    return root


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


DT401 = "evil.py:12:5: DT401 eval is not allowed: eval executes a string as Python code"
# (command line after `check`, exit code, what stdout starts with, stderr's last line)
CHECK_LINES: list[tuple[list[str], int, str, str]] = [
    (["good.py"], 0, "good.py: accepted\n", ""),
    (["evil.py"], 1, DT401, ""),
    (["good.py", "evil.py"], 1, f"good.py: accepted\n{DT401}", ""),
    (["--json", "good.py"], 0, '{\n  "accepted": true,', ""),
    (["evil.py", "--json"], 1, '{\n  "accepted": false,', ""),
    (["--format", "sarif", "evil.py"], 1, '{\n  "$schema": "https://json.schemastore.org/sarif',
     ""),
    (["--format=json", "good.py"], 0, '{\n  "accepted": true,', ""),
    (["--json", "--format", "text", "evil.py"], 1, DT401, ""),
    (["--format", "json", "--format", "text", "good.py"], 0, "good.py: accepted\n", ""),
    (["missing.py"], 2, "", "Error: missing.py: No such file or directory"),
    (["sub"], 2, "", "Error: sub: is a directory; pass tool files"),
    (["good.py", "missing.py"], 2, "", "Error: missing.py: No such file or directory"),
    (["-"], 1, "<stdin>:12:5: DT401", ""),
    (["--", "-x.py"], 0, "-x.py: accepted\n", ""),
    (["--allowlist", "strict.toml", "good.py"], 0, "good.py: accepted\n", ""),
    (["--allowlist=strict.toml", "good.py"], 0, "good.py: accepted\n", ""),
    (["--allowlist", "nowhere.toml", "good.py"], 2, "",
     "Error: cannot read allow-list nowhere.toml: No such file or directory"),
    (["--allowlist", "broken.toml", "good.py"], 2, "",
     "Error: broken.toml: Expected ']' at the end of a table declaration (at line 1, column 8)"),
    ([], 2, "", "Error: Missing argument 'FILES...'."),
    (["--help"], 0, "Usage: dyntools check [OPTIONS] FILES...", ""),
    (["-h"], 0, "Usage: dyntools check [OPTIONS] FILES...", ""),
    (["--bogus", "good.py"], 2, "", "Error: No such option '--bogus'."),
    (["--format", "xml", "good.py"], 2, "",
     "Error: Invalid value for '--format': 'xml' is not one of 'text', 'json', 'sarif'."),
    (["--format"], 2, "", "Error: Option '--format' requires an argument."),
    (["--allowlist", "sub", "good.py"], 2, "",
     "Error: Invalid value for '--allowlist': File 'sub' is a directory."),
    (["--json=1", "good.py"], 2, "", "Error: Option '--json' does not take a value."),
]


@pytest.mark.parametrize("argv, code, out, err", CHECK_LINES,
                         ids=[" ".join(line[0]) or "(none)" for line in CHECK_LINES])
def test_check_command_lines(folder: Path, argv: list[str], code: int, out: str,
                             err: str) -> None:
    stdin = EVIL.encode() if argv == ["-"] else b""
    done = run_cli(["check", *argv], folder, stdin=stdin)
    assert (done[0], done[1].startswith(out), _last_line(done[2])) == (code, True, err), done
    if code == 2 and not err.startswith("Error: Option"):  # click's usage error: usage line,
        assert done[2].startswith("Usage: dyntools check [OPTIONS] FILES...\nTry 'dyntools "
                                  "check --help' for help.\n\nError: "), done[2]  # hint, then the error


HELLO = '{"text": "Hello World"}'
TOOL = ["slugify_text", "--registry", "reg"]
TIMEOUT_RANGE = "timeout_s must be a number of seconds above 0 and at most 86400, got"
# (command line after `call`, exit code, stdout, stderr's last line); None: not compared
CALL_LINES: list[tuple[list[str], int, str | None, str]] = [
    ([*TOOL, "--params", HELLO], 0, '{"slug": "hello-world"}\n', ""),
    (["--params", HELLO, "--registry", "reg", "--", "slugify_text"], 0,
     '{"slug": "hello-world"}\n', ""),
    ([*TOOL, "--params", '{"text": 1}'], 2, "", "error: usage/invalid_params: params for "
     'slugify_text do not match its schema at text: 1 is not of type "string"'),
    ([*TOOL, "--params", '{"text"'], 2, "", "Error: --params is not valid JSON: Expecting ':' "
     "delimiter: line 1 column 8 (char 7)"),
    ([*TOOL, "--params", "[1]"], 2, "", "Error: --params must be a JSON object"),
    ([*TOOL, "--params", HELLO, "--timeout", "nan"], 2, "", f"Error: {TIMEOUT_RANGE} nan"),
    ([*TOOL, "--params", HELLO, "--timeout=-1"], 2, "", f"Error: {TIMEOUT_RANGE} -1.0"),
    ([*TOOL, "--params", HELLO, "--require-layers", "restricted,seccomp"], 0,
     '{"slug": "hello-world"}\n', ""),
    ([*TOOL, "--params", HELLO, "--allowlist", "broken.toml"], 2, "",
     "Error: broken.toml: Expected ']' at the end of a table declaration (at line 1, column 8)"),
    ([*TOOL, "--params", HELLO, "--capabilities", "nowhere.toml"], 2, "",
     "Error: nowhere.toml: cannot read the capability policy: No such file or directory"),
    ([*TOOL, "--params", HELLO, "--trusted-keys", "nowhere.keys"], 2, "",
     "error: usage/usage_error: trusted keys nowhere.keys: cannot read it (No such file or "
     "directory)"),
    ([*TOOL, "--params", HELLO, "--params", '{"text": "second wins"}'], 0,
     '{"slug": "second-wins"}\n', ""),
    (["missing_tool", "--registry", "reg", "--params", "{}"], 2, "",
     "error: registry/unknown_tool: unknown tool 'missing_tool' in registry reg"),
    (["slugify_text", "--registry", "nowhere", "--params", HELLO], 2, "",
     "error: usage/usage_error: registry nowhere does not exist (dyntools init nowhere "
     "creates one)"),
    (["slugify_text", "--registry", "broken.toml", "--params", HELLO], 2, "",
     "error: usage/usage_error: registry broken.toml is not a folder"),
    ([], 2, "", "Error: Missing argument 'NAME'."),
    (["--help"], 0, None, ""),
    # --params defaults to {}: a tool with required params says which one is missing
    (TOOL, 2, "", "error: usage/invalid_params: params for slugify_text do not match its "
     'schema at (root): "text" is a required property'),
    (["a", "b", "--params", "{}"], 2, "", "Error: Got unexpected extra argument (b)"),
    ([*TOOL, "--params", "{}", "--timeout", "soon"], 2, "",
     "Error: Invalid value for '--timeout': 'soon' is not a valid float."),
    ([*TOOL, "--params", "{}", "--executor", "k8s"], 2, "",
     "Error: Invalid value for '--executor': 'k8s' is not one of 'local', 'ray'."),
    ([*TOOL, "--params", "{}", "--allowlist", "sub"], 2, "",
     "Error: Invalid value for '--allowlist': File 'sub' is a directory."),
]


@pytest.mark.parametrize("argv, code, out, err", CALL_LINES,
                         ids=[" ".join(line[0]) or "(none)" for line in CALL_LINES])
def test_call_command_lines(folder: Path, argv: list[str], code: int, out: str | None,
                            err: str) -> None:
    done = run_cli(["call", *argv], folder)
    assert (done[0], _last_line(done[2])) == (code, err), done
    if out is not None:
        assert done[1] == out


def test_call_json_outcomes(folder: Path) -> None:
    code, out, _ = run_cli(["call", "--registry=reg", "slugify_text", f"--params={HELLO}",
                            "--json"], folder)
    assert (code, json.loads(out)) == (0, {"ok": True, "tool": "slugify_text", "version": 1,
                                           "result": {"slug": "hello-world"}})
    code, out, _ = run_cli(["call", *TOOL, "--params", '{"text": 1}', "--json"], folder)
    assert (code, json.loads(out)["error"]["reason"]) == (2, "invalid_params")


def test_the_console_script_calls_and_loses_no_audit_event(folder: Path) -> None:
    audit = folder / "console.jsonl"
    code, out, err = run_cli(["call", *TOOL, "--params", HELLO, "--audit-log", str(audit)],
                             folder)
    assert (code, json.loads(out), err) == (0, {"slug": "hello-world"}, "")
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    assert any(e.get("tool") == "slugify_text" and e.get("component") == "runtime"
               for e in events)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_check_exits_cleanly(sig: int, code: int) -> None:
    process = subprocess.Popen(dyntools_argv(["check", "-"]), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env_without_dyntools())
    out, err = interrupt(process, sig)  # once its handlers are in, it waits on stdin
    assert (process.returncode, out, err) == (code, b"", interrupted_line(sig))


def _has_child(pid: int) -> bool:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return children.exists() and children.read_text().strip() != ""


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_call_exits_cleanly(folder: Path, sig: int, code: int) -> None:
    process = subprocess.Popen(
        dyntools_argv(["call", "spin", "--registry", "reg", "--params", "{}", "--timeout",
                       "60"]), cwd=folder, env=env_without_dyntools(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = interrupt(process, sig, settle_s=0.5,  # the worker is counting by then
                         ready=lambda pid: handles_sigterm(pid) and _has_child(pid))
    assert (process.returncode, out, err) == (code, b"", interrupted_line(sig))


@pytest.mark.parametrize("argv", [
    ["check", "--json", *(["good.py", "evil.py"] * 50)],
    ["call", *TOOL, "--params", json.dumps({"text": "word " * 20_000}), "--json"],
], ids=["check", "call"])
def test_a_reader_that_goes_away_ends_the_command_quietly(folder: Path,
                                                          argv: list[str]) -> None:
    process = subprocess.Popen(dyntools_argv(argv), cwd=folder, env=env_without_dyntools(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the command writes a byte
    err = process.stderr.read().decode()
    process.wait(timeout=60)
    assert (err, process.returncode) == ("", 1)


def test_no_module_of_the_cli_reads_the_command_line_itself() -> None:
    """One parser: click reads sys.argv for every command; no module of dyntools/cli/ reads it
    (a second parser beside click's drifts from it), and none ends the process with
    os._exit (the interpreter's own exit runs)."""
    readers = []
    for path in sorted(Path(dyntools.cli.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
                    (node.value.id, node.attr) in (("sys", "argv"), ("os", "_exit"))):
                readers.append(f"{path.name}:{node.lineno} {node.value.id}.{node.attr}")
    assert readers == []
