"""The command line: the only part of dyntools that prints or chooses exit codes.

The console script (and `python -m dyntools`) calls `script()`, which installs the CLI's
SIGINT/SIGTERM handlers and then runs the click group `main` (app.py); click parses every
command line, and the process ends with the interpreter's own exit. The group imports a
command's module only when that command runs, or when --help lists them all. `main` is
importable from here (`from dyntools.cli import main`, for click's CliRunner); importing this
package alone loads neither click nor any command.
"""

from __future__ import annotations

import sys
from typing import Any


def script() -> None:
    """The `dyntools` command (it returns, or raises SystemExit with the exit code)."""
    from dyntools.base import interrupts

    try:
        interrupts.install()  # before click's import: a Ctrl-C there exits cleanly too
        from dyntools.cli.app import main
    except KeyboardInterrupt as exc:
        code = interrupts.exit_code_for(exc)
        sys.stderr.write(f"dyntools: interrupted ({interrupts.SIGNAL_NAMES[code - 128]})\n")
        sys.exit(code)
    main()


def __getattr__(name: str) -> Any:
    if name == "main":
        from dyntools.cli.app import main

        return main
    raise AttributeError(f"module 'dyntools.cli' has no attribute {name!r}")
