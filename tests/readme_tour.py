"""The README's tour, run as written: every `$` line of its console block, in order, in a
folder that holds a fresh copy of `examples/`.

    python tests/readme_tour.py README.md WORKDIR      # a JSON report on stdout

A line ending in `&` runs in the background and is stopped when the tour ends; `watch`,
`serve-mcp` and `ui` (which wait for a person or a client) are skipped. A line expects exit
0 unless its comment says `(exit N)`; the lines shown under it are what it must print, but
for `...`, and for the stations' timings (a station line is matched by its mark, station and
outcome). tests/test_readme_tour.py runs this in a network namespace of its own, so the demo
page's port 8765 is free whatever else runs on the machine.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

SKIPPED = ("dyntools watch", "dyntools serve-mcp", "dyntools ui")
_STATION = re.compile(r"^\s+(ok|miss|hit|new|wait|FAIL)\s+(\w+)\s+(\w+)\s")
_EXIT = re.compile(r"\(exit (\d+)\)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Line(NamedTuple):
    command: str  # as bash runs it (comment included: bash drops it)
    expected: list[str]  # what it prints, as the README shows it
    code: int
    background: bool
    skipped: bool


def tour(readme: str) -> list[Line]:
    """The tour's `$` lines (a line ending in a backslash continues on the next)."""
    section = readme.split("## A 30-second tour", 1)[1]
    block = re.search(r"```console\n(.*?)```", section, re.DOTALL)
    if block is None:
        raise ValueError("the README's tour has no console block")
    lines: list[Line] = []
    rows = block.group(1).splitlines()
    index = 0
    while index < len(rows):
        row = rows[index]
        index += 1
        if not row.startswith("$ "):
            if lines:
                lines[-1].expected.append(row)
            continue
        command = row[2:]
        while _code_part(command).rstrip().endswith("\\") and index < len(rows):
            command = _code_part(command).rstrip()[:-1] + " " + rows[index].strip()
            index += 1
        code = _code_part(command).strip()
        found = _EXIT.search(command[len(_code_part(command)):])
        lines.append(Line(command, [], int(found.group(1)) if found else 0,
                          code.endswith("&"), code.startswith(SKIPPED)))
    return lines


def _code_part(command: str) -> str:
    """The command before its `#` comment (a `#` inside quotes is not one)."""
    quote = None
    for at, ch in enumerate(command):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (at == 0 or command[at - 1].isspace()):
            return command[:at]
    return command


def missing_output(expected: list[str], output: str) -> list[str]:
    """The shown lines the output lacks (stations by mark, station and outcome)."""
    seen = [" ".join(_ANSI.sub("", line).split()) for line in output.splitlines()]
    stations = {m.groups() for m in (_STATION.match(_ANSI.sub("", line))
                                     for line in output.splitlines()) if m}
    missing = []
    for line in expected:
        if not line.strip() or line.strip() == "..." or line.startswith(" " * 20):
            continue  # a gap, or a comment's continuation
        station = _STATION.match(line)
        if station is not None:
            if station.groups() not in stations:
                missing.append(line)
            continue
        wanted = " ".join(line.split())
        if not any(wanted in text for text in seen):
            missing.append(line)
    return missing


def run(lines: list[Line], cwd: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    report: list[dict[str, Any]] = []
    background: list[subprocess.Popen[bytes]] = []
    try:
        for line in lines:
            entry: dict[str, Any] = {"command": line.command, "expected_code": line.code}
            if line.skipped:
                report.append({**entry, "skipped": True})
                continue
            if line.background:
                background.append(subprocess.Popen(
                    ["bash", "-c", _code_part(line.command).strip()[:-1]], cwd=cwd, env=env,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    start_new_session=True))
                report.append({**entry, "background": True})
                continue
            done = subprocess.run(["bash", "-c", line.command], cwd=cwd, env=env,
                                  capture_output=True, timeout=600, check=False)
            out, err = (done.stdout.decode("utf-8", "replace"),
                        done.stderr.decode("utf-8", "replace"))
            report.append({**entry, "code": done.returncode, "stdout": out, "stderr": err,
                           "missing": missing_output(line.expected, out + "\n" + err)})
    finally:
        for process in background:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
    return report


def main(argv: list[str]) -> int:
    readme, workdir = Path(argv[0]), Path(argv[1])
    report = run(tour(readme.read_text(encoding="utf-8")), workdir, dict(os.environ))
    json.dump(report, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
