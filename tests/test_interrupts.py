"""dyntools.base.interrupts in one process: `install` only from Python's main thread, and
`critical()` holds a signal there (and only there) until its block ends."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = r'''
import os, signal, sys, threading
from dyntools.base import interrupts

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


SWALLOWED = r'''
import os, signal, sys, time
from dyntools.base import interrupts

class Finalised:
    def __del__(self):
        os.kill(os.getpid(), signal.SIG)  # handled inside this __del__ (the loop's check)
        n = 0
        for _ in range(1000):
            n += 1

interrupts.install()
try:
    item = Finalised()
    del item
    time.sleep(20)  # the signal, sent again, ends this
    print("not reached", flush=True)
except interrupts.Interrupted as exc:
    print("raised", exc.exit_code, flush=True)
os._exit(0)
'''


@pytest.mark.parametrize("sig, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_inside_a_finaliser_is_raised_once_it_returns(sig: str, code: int) -> None:
    # An exception raised in __del__ (or in the import system's module-lock callback) is
    # printed as "Exception ignored" and lost: the handler sends the signal again instead.
    done = subprocess.run([sys.executable, "-c", SWALLOWED.replace("signal.SIG)",
                                                                   f"signal.{sig})")],
                          capture_output=True, text=True, timeout=30, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"raised {code}\n", "")


CALLBACK_SWALLOWED = r'''
import os, signal, sys, time, weakref
from dyntools.base import interrupts

class Item:
    pass

def gone(_ref):  # a weakref callback: no frame says so, only the unraisable hook can tell
    os.kill(os.getpid(), signal.SIG)
    n = 0
    for _ in range(1000):
        n += 1

interrupts.install()
try:
    item = Item()
    ref = weakref.ref(item, gone)
    del item
    time.sleep(20)  # the signal, sent again, ends this
    print("not reached", flush=True)
except interrupts.Interrupted as exc:
    print("raised", exc.exit_code, flush=True)
os._exit(0)
'''


@pytest.mark.parametrize("sig, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_lost_in_a_weakref_callback_is_raised_again(sig: str, code: int) -> None:
    # Raised in a weakref callback (weakref.finalize's, tempfile's clean-ups), Interrupted is
    # printed as "Exception ignored" and dropped: sys.unraisablehook takes it back and the
    # signal is sent again (seen once in the random-interrupt test: a finalize callback).
    done = subprocess.run([sys.executable, "-c", CALLBACK_SWALLOWED.replace(
        "signal.SIG)", f"signal.{sig})")], capture_output=True, text=True, timeout=30,
        check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"raised {code}\n", "")


def test_other_unraisable_exceptions_still_reach_the_previous_hook() -> None:
    code = ("import sys\nfrom dyntools.base import interrupts\n"
            "seen = []\nsys.unraisablehook = lambda u: seen.append(type(u.exc_value).__name__)\n"
            "interrupts.install()\ninterrupts.install()\n"
            "class Bad:\n    def __del__(self):\n        raise ValueError('x')\n"
            "Bad()\nprint(seen)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=30, check=True)
    assert (done.stdout, done.stderr) == ("['ValueError']\n", "")


def test_the_import_systems_lock_callback_is_a_place_that_swallows() -> None:
    from types import SimpleNamespace

    from dyntools.base.interrupts import _swallows

    def frame(name: str, filename: str) -> object:
        return SimpleNamespace(f_code=SimpleNamespace(co_name=name, co_filename=filename),
                               f_back=SimpleNamespace(f_code=SimpleNamespace(
                                   co_name="<module>", co_filename="main.py"), f_back=None))

    assert _swallows(frame("cb", "<frozen importlib._bootstrap>"))  # type: ignore[arg-type]
    assert _swallows(frame("__del__", "tool.py"))  # type: ignore[arg-type]
    assert not _swallows(frame("cb", "mine.py"))  # type: ignore[arg-type]
    assert not _swallows(frame("_find_and_load", "<frozen importlib._bootstrap>"))  # type: ignore[arg-type]
    assert not _swallows(None)
    called_by_a_finaliser = SimpleNamespace(f_code=SimpleNamespace(co_name="helper",
                                                                   co_filename="tool.py"),
                                            f_back=frame("__del__", "tool.py"))
    assert _swallows(called_by_a_finaliser)  # type: ignore[arg-type]


SIGNAL_WHILE_INSTALLING = r'''
import os, signal, sys, threading
real_start = threading.Thread.start
def start(self):  # the signal lands while install() starts its helper thread
    os.kill(os.getpid(), signal.SIGINT)
    real_start(self)
threading.Thread.start = start
sys.argv = ["dyntools", "--version"]
from dyntools.cli import script
script()
'''


def test_a_signal_while_the_handlers_are_installed_is_one_line_and_130() -> None:
    done = subprocess.run([sys.executable, "-c", SIGNAL_WHILE_INSTALLING],
                          capture_output=True, text=True, timeout=30, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (
        130, "", "dyntools: interrupted (SIGINT)\n")
