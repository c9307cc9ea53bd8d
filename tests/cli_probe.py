"""For the tests of whole command lines: `dyntools ARGV` run as the console script runs it, in
a fresh interpreter, and what its signal handlers show of a process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def env_without_dyntools() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("DYNTOOLS_")}


# What the console script does (its name in sys.argv[0]: click's usage lines name it).
ENTRY = "import sys; sys.argv[0] = 'dyntools'; from dyntools.cli import script; script()"


def dyntools_argv(argv: list[str]) -> list[str]:
    """The interpreter's command line that runs `dyntools ARGV` as the console script does."""
    return [sys.executable, "-c", ENTRY, *argv]


def run_cli(argv: list[str], cwd: Path, *, stdin: bytes = b"",
            env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`dyntools ARGV` in a fresh interpreter: exit code, stdout, stderr."""
    done = subprocess.run(dyntools_argv(argv), input=stdin, capture_output=True, cwd=cwd,
                          env=env_without_dyntools() if env is None else env, timeout=120,
                          check=False)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


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
