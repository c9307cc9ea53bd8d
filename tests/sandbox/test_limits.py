"""SandboxLimits refuses what no call could be held to: a timeout (or CPU or start-up limit)
that is not a number of seconds above 0 and at most a day. NaN and infinity once reached the
worker's setrlimit as a traceback (`dyntools call --timeout nan`)."""

from __future__ import annotations

import math

import pytest

from dyntools.sandbox.limits import MAX_SECONDS, SandboxLimits


@pytest.mark.parametrize("field", ["timeout_s", "cpu_s", "startup_timeout_s"])
@pytest.mark.parametrize("seconds", [0, -1.0, math.nan, math.inf, -math.inf, MAX_SECONDS * 2])
def test_seconds_that_no_call_could_keep_are_refused(field: str, seconds: float) -> None:
    with pytest.raises(ValueError, match=f"{field} must be a number of seconds above 0"):
        SandboxLimits(**{field: seconds})
    with pytest.raises(ValueError, match=field):
        SandboxLimits()._replace(**{field: seconds})


@pytest.mark.parametrize("seconds", [0.001, 2.5, MAX_SECONDS])
def test_seconds_up_to_a_day_are_taken(seconds: float) -> None:
    limits = SandboxLimits(timeout_s=seconds, cpu_s=seconds, startup_timeout_s=seconds)
    assert (limits.timeout_s, limits.cpu_seconds) == (seconds, max(1, int(seconds)))
    assert SandboxLimits(timeout_s=seconds).cpu_seconds == max(1, int(seconds + 1.0))
