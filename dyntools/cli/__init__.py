"""The command line: the only part of dyntools that prints or chooses exit codes.

The console script calls `run()`. `dyntools --version` is answered here, before anything else
is imported, and a plain `dyntools check FILE...` goes to check_run.py without click; every
other command line goes to the click group `main` (app.py), which imports a command's module
only when that command runs, or when --help lists them all. `main` is
importable from here as before (`from dyntools.cli import main`, for click's CliRunner).
"""

from __future__ import annotations

import sys

from dyntools import __version__

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: `dyntools --version` imports nothing else
if TYPE_CHECKING:
    from typing import Any


def run() -> None:
    """The `dyntools` command."""
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(f"dyntools, version {__version__}\n")  # click's version_option text
        sys.stdout.flush()
        return
    if sys.argv[1:2] == ["check"]:  # a plain check command line needs no click (check_run.py)
        from dyntools.cli.check_run import fast_arguments, run_fast

        arguments = fast_arguments(sys.argv[2:])
        if arguments is not None:
            sys.exit(run_fast(arguments))
    from dyntools import interrupts

    interrupts.install()  # before the command's imports: a Ctrl-C there exits cleanly too
    try:
        from dyntools.cli.app import main
    except KeyboardInterrupt as exc:
        sys.stderr.write("dyntools: interrupted\n")
        sys.exit(interrupts.exit_code_for(exc))
    main()


def __getattr__(name: str) -> Any:
    if name == "main":
        from dyntools.cli.app import main

        return main
    raise AttributeError(f"module 'dyntools.cli' has no attribute {name!r}")
