"""`dyntools.cli.exit_now`, the console script's exit without the interpreter's teardown: it
still does everything an exit must (threads, atexit, the flush of stdout and stderr, the exit
code), and gives the whole teardown back to a process that asked for warnings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _python(code: str, *flags: str, stdout: int | None = subprocess.PIPE,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # Buffered stdout and no warnings unless asked for: what an exit has to flush is there.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "PYTHONUNBUFFERED")}
    return subprocess.run([sys.executable, *flags, "-c", code], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=cwd, timeout=60,
                          check=False)


def test_it_waits_for_threads_runs_atexit_flushes_and_keeps_the_code() -> None:
    done = _python(
        "import atexit, sys, threading, time\n"
        "from dyntools.cli import exit_now\n"
        "def late():\n"
        "    time.sleep(0.2)\n"
        "    sys.stdout.write('thread\\n')\n"
        "threading.Thread(target=late).start()\n"
        "atexit.register(lambda: sys.stdout.write('atexit\\n'))\n"
        "sys.stdout.write('main\\n')  # buffered: a pipe is not a terminal\n"
        "sys.stderr.write('err')\n"
        "exit_now(3)\n")
    assert (done.returncode, done.stdout, done.stderr) == (3, "main\nthread\natexit\n", "err")


def test_an_exit_code_that_is_no_number_is_printed_as_python_does() -> None:
    done = _python("from dyntools.cli import exit_now\nexit_now('no such thing')\n")
    assert (done.returncode, done.stderr) == (1, "no such thing\n")


def test_a_stdout_that_cannot_be_flushed_exits_120_without_a_traceback() -> None:
    read, write = os.pipe()
    os.close(read)  # nobody will ever read: the flush at exit fails with EPIPE
    try:
        done = _python("import sys\nfrom dyntools.cli import exit_now\n"
                       "sys.stdout.write('x' * 100)\nexit_now(0)\n", stdout=write)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (120, "")


def test_a_process_that_asked_for_warnings_gets_the_whole_teardown(tmp_path: Path) -> None:
    code = ("from dyntools.cli import exit_now\n"
            "kept = open('left-open.txt', 'w')\n"  # closed only by the teardown
            "exit_now(0)\n")
    warned = _python(code, "-W", "default", cwd=tmp_path)
    assert warned.returncode == 0 and "ResourceWarning: unclosed file" in warned.stderr
    quiet = _python(code, cwd=tmp_path)
    assert (quiet.returncode, quiet.stderr) == (0, "")


def test_the_console_script_and_python_m_use_it() -> None:
    import tomllib

    from dyntools import __main__ as module_main

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text("utf-8"))
    assert project["project"]["scripts"]["dyntools"] == "dyntools.cli:script"
    assert "script()" in Path(module_main.__file__).read_text("utf-8")
    done = _python("import sys; sys.argv = ['dyntools', '--version']\n"
                   "from dyntools.cli import script\nscript()\n")
    assert (done.returncode, done.stdout.startswith("dyntools, version "), done.stderr) == (
        0, True, "")


def test_a_reader_gone_before_the_version_is_exit_1_without_a_traceback() -> None:
    for unbuffered in ("", "1"):  # the write fails at once, or the flush does
        read, write = os.pipe()
        os.close(read)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
        if unbuffered:
            env["PYTHONUNBUFFERED"] = unbuffered
        try:
            done = subprocess.run([sys.executable, "-m", "dyntools", "--version"], stdout=write,
                                  stderr=subprocess.PIPE, text=True, env=env, timeout=60,
                                  check=False)
        finally:
            os.close(write)
        assert (done.returncode, done.stderr) == (1, ""), unbuffered
