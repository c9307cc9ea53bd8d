"""Issue 28: the README tour is a test. Every `$` line of its console block runs in order in
a fresh copy (tests/readme_tour.py says how), with the exit code its comment names (0
otherwise), printing what the README shows under it; nothing it prints to a person is a
traceback or a raw JSON log line. The tour runs in a network namespace of its own (root, or
user namespaces), so the demo page's port 8765 is its own whatever else runs here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.readme_tour import missing_output, tour

ROOT = Path(__file__).resolve().parents[1]
ALONE = ["unshare", "--net", "bash", "-c", 'ip link set lo up && exec "$0" "$@"']


def _isolated() -> list[str]:
    """The prefix that runs a command with a loopback of its own, or [] where none can be
    made (then port 8765 must be free here)."""
    if shutil.which("unshare") and shutil.which("ip") and subprocess.run(
            [*ALONE, "true"], capture_output=True, check=False).returncode == 0:
        return ALONE
    import socket

    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 8765)) == 0:
            pytest.skip("port 8765 is in use and no network namespace can be made")
    return []


def test_the_tour_parses_as_the_readme_shows_it() -> None:
    lines = tour((ROOT / "README.md").read_text(encoding="utf-8"))
    commands = [line.command.split("#")[0].split() for line in lines]
    assert ["python", "examples/demo_server.py", "8765", "&"] in commands
    assert lines[0].command.startswith("dyntools ensure slugify_text")
    assert [line.code for line in lines if line.code] == [1, 17]
    assert sum(line.background for line in lines) == 1
    assert sum(line.skipped for line in lines) == 3  # watch, serve-mcp, ui
    # today's commands stay
    for shown in ("dyntools approve slugify_text 2 --reason", "dyntools review --trusted-keys "
                  "alice.key.pub", "dyntools call page_title --params", "dyntools doctor"):
        assert any(line.command.startswith(shown) for line in lines), shown
    assert missing_output(["  ok   gate      accepted         0.74 ms      sha256 1",
                           "...", "{\"a\": 1}"],
                          "  ok   gate      accepted        9.1 ms      sha256 2\n{\"a\": 1}") == []
    assert missing_output(["{\"a\": 2}"], "{\"a\": 1}") == ["{\"a\": 2}"]


def test_every_line_of_the_tour_runs_as_written(tmp_path: Path) -> None:
    copy = tmp_path / "fresh"
    copy.mkdir()
    shutil.copytree(ROOT / "examples", copy / "examples")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DYNTOOLS_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["DYNTOOLS_LOG_FORMAT"] = "text"  # what a person at a terminal gets
    done = subprocess.run(
        [*_isolated(), sys.executable, str(ROOT / "tests" / "readme_tour.py"),
         str(ROOT / "README.md"), str(copy)], cwd=copy, env=env, capture_output=True,
        timeout=900, check=False)
    assert done.returncode == 0, done.stderr.decode()
    report = json.loads(done.stdout)
    failures = []
    for entry in report:
        if entry.get("skipped") or entry.get("background"):
            continue
        problems = []
        if entry["code"] != entry["expected_code"]:
            problems.append(f"exit {entry['code']}, expected {entry['expected_code']}")
        if entry["missing"]:
            problems.append(f"did not print {entry['missing']}")
        if "Traceback" in entry["stdout"] + entry["stderr"]:
            problems.append("printed a traceback")
        if any(line.lstrip().startswith('{"') for line in entry["stderr"].splitlines()):
            problems.append("printed a JSON log line")
        if problems:
            failures.append(f"$ {entry['command']}\n  " + "; ".join(problems)
                            + f"\n  stdout: {entry['stdout'][-800:]!r}"
                            + f"\n  stderr: {entry['stderr'][-800:]!r}")
    assert not failures, "\n".join(failures)
    shown = tour((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(report) == len(shown)
    assert [e.get("skipped", False) for e in report] == [line.skipped for line in shown]


def _readme_exit_codes() -> dict[int, str]:
    """The README's exit-code table: code -> its row's meaning."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("### Exit codes", 1)[1]
    rows: dict[int, str] = {}
    for line in section.split("\n## ", 1)[0].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 2 and cells[0][:1].isdigit():
            for code in cells[0].split(","):
                rows[int(code)] = cells[1]
    return rows


def test_the_readme_exit_codes_are_the_cli_s() -> None:
    from dyntools.base.interrupts import EXIT_CODES as SIGNAL_EXITS
    from dyntools.cli.app import EXIT_INTERNAL
    from dyntools.cli.common import EXIT_CODES, EXIT_EPILOG, EXIT_OK, EXIT_OTHER

    cli = ({EXIT_OK, EXIT_OTHER, EXIT_INTERNAL} | {code for _, code in EXIT_CODES}
           | set(SIGNAL_EXITS.values()))
    readme = _readme_exit_codes()
    assert set(readme) == cli
    for cls, code in EXIT_CODES:  # a reason the README names sits in its code's row
        if f"`{cls.reason}`" in "".join(readme.values()):
            assert f"`{cls.reason}`" in readme[code], (cls.__name__, code)
    assert "a bug in dyntools" in readme[EXIT_INTERNAL]
    for code in cli - {EXIT_OK}:  # `ensure --help` lists every one too
        assert f" {code} " in EXIT_EPILOG.replace(",", " "), code
