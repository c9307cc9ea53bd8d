"""dyntools.interrupts in one process: `install` only from Python's main thread, and
`critical()` holds a signal there (and only there) until its block ends."""

from __future__ import annotations

import subprocess
import sys

PROBE = r'''
import os, signal, sys, threading
from dyntools import interrupts

outcome = []
def elsewhere():
    interrupts.install()  # not the main thread: a no-op, no ValueError
    outcome.append(interrupts._state.installed)
    with interrupts.critical():  # installed or not, another thread is never held
        outcome.append("ran")
worker = threading.Thread(target=elsewhere)
worker.start(); worker.join()
assert outcome == [False, "ran"], outcome
assert "threading" in sys.modules
interrupts.install()
try:
    with interrupts.critical():
        os.kill(os.getpid(), signal.SIGTERM)
        print("held", flush=True)  # the signal waits for the block's end
    print("not reached", flush=True)
except interrupts.Interrupted as exc:
    print("raised", exc.exit_code, flush=True)
    os._exit(0)
'''


def test_critical_holds_the_signal_in_the_main_thread_only() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=30, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "held\nraised 143\n", "")


def test_a_check_starts_without_threading() -> None:
    code = ("import sys\nfrom dyntools import interrupts\ninterrupts.install()\n"
            "with interrupts.critical():\n    pass\nprint('threading' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=30, check=True)
    assert done.stdout == "False\n"
