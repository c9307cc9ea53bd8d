"""The console script ends with the interpreter's own exit: `script()` raises click's
SystemExit (nothing ends the process under its caller's feet), the exit runs what an exit
runs (atexit, the threads that are not daemons, the flush of stdout), and a reader gone
before the output is written is exit 1 without a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _python(code: str, *, stdout: int | None = subprocess.PIPE,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # Buffered stdout: what an exit has to flush is there.
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONWARNINGS", "PYTHONUNBUFFERED") and not k.startswith("DYNTOOLS_")}
    return subprocess.run([sys.executable, "-c", code], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=env, cwd=cwd, timeout=60, check=False)


def test_script_raises_the_exit_and_the_interpreter_ends_the_process(tmp_path: Path) -> None:
    done = _python(
        "import atexit, sys, threading\n"
        "exiting = threading.Event()\n"
        "def late():\n"
        "    exiting.wait()  # the exit has begun: it must still wait for this thread\n"
        "    sys.stdout.write('thread\\n')\n"
        "atexit.register(lambda: sys.stdout.write('atexit\\n'))\n"
        "sys.argv = ['dyntools', 'check', 'missing.py']\n"
        "from dyntools.cli import script\n"
        "threading.Thread(target=late).start()\n"
        "try:\n"
        "    script()\n"
        "except SystemExit as exc:\n"
        "    sys.stdout.write(f'exit {exc.code}\\n')  # buffered: a pipe is not a terminal\n"
        "    exiting.set()\n"
        "    raise\n", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "exit 2\nthread\natexit\n")
    assert done.stderr.endswith("Error: missing.py: No such file or directory\n")


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
