"""The one way the suite runs `dyntools` as a process: `dyntools(*ARGS)` in a fresh
interpreter (`python -m dyntools`, as a person or a script runs it), `run_cli(ARGV, cwd)` as
the console script runs it (its name in argv[0]), and what its signal handlers show of a
process. Both start from this process's environment without its `DYNTOOLS_*` variables, so
an engineer's own registry or keys never leak into a test."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.support.environment import env_without_dyntools

DYNTOOLS = (sys.executable, "-m", "dyntools")


def dyntools(*args: str, cwd: Path | str | None = None, env: Mapping[str, str] | None = None,
             add_env: Mapping[str, str] | None = None, stdin: bytes | str | None = None,
             prefix: Sequence[str] = (), timeout: float = 120,
             text: bool = True) -> subprocess.CompletedProcess[Any]:
    """`[*prefix] python -m dyntools ARGS`: never raises for the exit code. `env` replaces
    the environment (default: this one without `DYNTOOLS_*`); `add_env` is added to it."""
    chosen = dict(env_without_dyntools() if env is None else env)
    chosen.update(add_env or {})
    return subprocess.run([*prefix, *DYNTOOLS, *args], input=stdin, capture_output=True,
                          text=text, cwd=cwd, env=chosen, timeout=timeout, check=False)


# What the console script does (its name in sys.argv[0]: click's usage lines name it).
ENTRY = "import sys; sys.argv[0] = 'dyntools'; from dyntools.cli import script; script()"


def dyntools_argv(argv: list[str]) -> list[str]:
    """The interpreter's command line that runs `dyntools ARGV` as the console script does."""
    return [sys.executable, "-c", ENTRY, *argv]


def run_cli(argv: list[str], cwd: Path, *, stdin: bytes = b"",
            env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """`dyntools ARGV` as the console script, in a fresh interpreter: exit code, stdout,
    stderr."""
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
