"""For the tests of the click-free command lines (`check`, `call`): one command line run in a
fresh interpreter through `dyntools.cli.run()` or through the click group, what the console
script's signal handlers show of a process, and what click's own parser makes of a line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def env_without_dyntools() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("DYNTOOLS_")}


def probe_argv(argv: list[str], *, click: bool) -> list[str]:
    """The interpreter's command line that runs `dyntools ARGV` one way or the other."""
    return [sys.executable, "-c", PROBE.format(click=click), json.dumps(argv)]


def split_probe_stderr(stderr: str) -> tuple[str, int, bool]:
    """The command's own stderr, its exit code, and whether it imported click."""
    text, _, tail = stderr.rpartition("\n@@")
    code, click_loaded = json.loads(tail)
    return text, code, click_loaded


def run_entry(argv: list[str], cwd: Path, *, click: bool, stdin: bytes = b"") -> tuple[
        int, str, str, bool]:
    """`dyntools ARGV` in a fresh interpreter: exit code, stdout, stderr, click imported."""
    done = subprocess.run(probe_argv(argv, click=click), input=stdin, capture_output=True,
                          cwd=cwd, env=env_without_dyntools(), timeout=120, check=False)
    stderr, code, click_loaded = split_probe_stderr(done.stderr.decode())
    return code, done.stdout.decode(), stderr, click_loaded


def handles_sigterm(pid: int) -> bool:
    """True once dyntools installed its handlers (Python itself catches only SIGINT)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(next(line.split()[1] for line in status.splitlines()
                      if line.startswith("SigCgt:")), 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


def interrupt(process: subprocess.Popen[bytes], sig: int, *,
              ready: Callable[[int], bool] = handles_sigterm,
              settle_s: float = 0.0) -> tuple[bytes, str]:
    """Once `ready(pid)` (the handlers are installed), and `settle_s` later, send `sig`; the
    process's stdout and stderr when it has ended."""
    try:
        deadline = time.monotonic() + 30
        while not ready(process.pid):
            assert time.monotonic() < deadline, "the process never got ready"
            time.sleep(0.02)
        time.sleep(settle_s)
        process.send_signal(sig)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    return out, err.decode()


def interrupted_line(sig: int) -> str:
    return f"dyntools: interrupted ({signal.Signals(sig).name})\n"


def click_params(command_name: str, argv: list[str]) -> dict[str, Any]:
    """What click's parser makes of `dyntools COMMAND_NAME ARGV` (raising where it refuses)."""
    import click

    from dyntools.cli.app import main

    command = main.get_command(click.Context(main), command_name)
    assert command is not None
    return command.make_context(command_name, list(argv)).params
