"""Waiting for something another thread or process does."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(predicate: Callable[[], bool], timeout: float = 20.0) -> bool:
    """Poll until `predicate()` holds; the timeout is a hang guard, never a claim about
    speed: pass a generous one and assert on the answer."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


# The bound of a test that proves a deadline cut something off: far above any real time on
# a loaded two-core machine, far below the time the thing cut off would take (minutes, or
# for ever). Speed itself is measured in bench/, never asserted here.
HANG_GUARD_S = 60.0
