"""The command line: the only part of dyntools that prints or chooses exit codes.

The console script (and `python -m dyntools`) calls `script()`: `run()`, then the process
ends without the interpreter's teardown (`exit_now`). `dyntools --version` is answered here,
before anything else is imported; a plain `dyntools check FILE...` goes to check_run.py and a
plain `dyntools call NAME --params JSON ...` to call_run.py, without click. Every other command
line goes to the click group `main` (app.py), which imports a command's module only when that
command runs, or when --help lists them all. `main` is importable from here as before (`from
dyntools.cli import main`, for click's CliRunner); `run()` is the command for a caller in its
own process (it returns, or raises SystemExit).
"""

from __future__ import annotations

import sys

from dyntools import __version__

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: `dyntools --version` imports nothing else
if TYPE_CHECKING:
    from typing import Any, NoReturn


def run() -> None:
    """The `dyntools` command."""
    if sys.argv[1:] == ["--version"]:
        try:
            sys.stdout.write(f"dyntools, version {__version__}\n")  # click's version text
            sys.stdout.flush()
        except BrokenPipeError:
            sys.exit(reader_gone())
        return
    if sys.argv[1:2] == ["check"]:  # a plain check command line needs no click (check_run.py)
        from dyntools.cli.check_run import fast_arguments, run_fast

        arguments = fast_arguments(sys.argv[2:])
        if arguments is not None:
            sys.exit(run_fast(arguments))
    if sys.argv[1:2] == ["call"]:  # and a plain call command line (call_run.py)
        from dyntools.cli import call_run

        call_arguments = call_run.fast_arguments(sys.argv[2:])
        if call_arguments is not None:
            sys.exit(call_run.run_fast(call_arguments))
    from dyntools.base import interrupts

    interrupts.install()  # before the command's imports: a Ctrl-C there exits cleanly too
    try:
        from dyntools.cli.app import main
    except KeyboardInterrupt as exc:
        sys.stderr.write("dyntools: interrupted\n")
        sys.exit(interrupts.exit_code_for(exc))
    main()


def report_interrupt(command: str, code: int) -> None:
    """What the CLI says of an interrupted command (exit `code`): one line on stderr and an
    `interrupted` event, never a traceback."""
    import contextlib

    from dyntools.base.interrupts import SIGNAL_NAMES

    name = SIGNAL_NAMES.get(code - 128, f"signal {code - 128}")
    with contextlib.suppress(Exception):
        from dyntools.base.log import get_logger

        get_logger("cli").info("interrupted", command=command, exit_code=code, signal=name)
    with contextlib.suppress(Exception):
        sys.stderr.write(f"dyntools: interrupted ({name})\n")
        sys.stderr.flush()


# click's exit code when the reader of stdout went away (`dyntools check *.py | head -1`)
EXIT_READER_GONE = 1


def reader_gone() -> int:
    """After a BrokenPipeError on stdout: point stdout at /dev/null, so the flush at exit
    writes nowhere and prints nothing, and give click's exit code for it (no traceback)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
    return EXIT_READER_GONE


def script() -> NoReturn:
    """The `dyntools` console script: `run()`, then `exit_now` with its exit code."""
    try:
        run()
    except SystemExit as exc:
        exit_now(exc.code)
    exit_now(0)


def exit_now(code: object) -> NoReturn:
    """End the process as the interpreter's own exit would, without its teardown.

    What an exit must do is done here, in the interpreter's order: wait for the threads that
    are not daemons (and what they registered to run after them), run the atexit functions
    (the audit log's close, the spare worker's end, logging's shutdown, a Ray driver's
    shutdown, the temporary folders' finalizers), flush stdout and stderr. Then `os._exit`:
    tearing down every module and freeing every object one by one is what the interpreter
    would do next, and that took 7-16 ms of a `check` or `call` (bench/startup.py) for
    memory the kernel frees at once. A stdout that cannot be flushed (the reader went away)
    exits 120, as the interpreter does. A process that asked for warnings (`-W`, `-X dev`,
    PYTHONWARNINGS) gets the whole teardown, where an unclosed file says so; so does an exit
    code that is not a number (Python prints it)."""
    if not (code is None or isinstance(code, int)) or sys.flags.dev_mode or sys.warnoptions:
        raise SystemExit(code)
    status = code or 0
    interrupts = sys.modules.get("dyntools.base.interrupts")
    if interrupts is not None:
        interrupts.finishing()  # a signal now lets the exit finish (base/interrupts.py)
    threading = sys.modules.get("threading")
    shutdown = getattr(threading, "_shutdown", None)
    if threading is not None and shutdown is None:
        raise SystemExit(code)  # an interpreter without it: its own exit knows how
    if shutdown is not None:
        shutdown()
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout:
                status = 120
    import os

    os._exit(status)


def __getattr__(name: str) -> Any:
    if name == "main":
        from dyntools.cli.app import main

        return main
    raise AttributeError(f"module 'dyntools.cli' has no attribute {name!r}")
