"""What a probe prints when it runs in a fresh interpreter: for tests of what a process
imports, or of module state only a new process starts without."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def fresh_stdout(probe: str, *args: str, cwd: Path | None = None) -> str:
    """`python -c probe ARGS...` in a new interpreter: its stdout, stripped (a failure raises
    CalledProcessError, whose stderr says why)."""
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                          text=True, timeout=120, check=True, cwd=cwd)
    return done.stdout.strip()
