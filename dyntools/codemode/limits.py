"""A script run's limits: total time, tool calls, composition depth and printed output.

    RunLimits()                                      # the defaults below
    RunLimits.from_value({"timeout": 10, "max_tool_calls": 5})   # `limits=` of run_code

Every limit holds for the whole run, across a wait and its resume: a resumed script's
recorded calls count against `max_tool_calls`, the time its earlier segments took against
`timeout` (a replayed prefix is answered from the record, so only its own code counts
again), and the output it printed before the wait against `max_output`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from dyntools.capabilities.hostcalls import MAX_TOOL_DEPTH
from dyntools.errors import UsageError
from dyntools.sandbox.limits import MAX_SECONDS

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_TOOL_CALLS = 100
MAX_TOOL_CALLS = 10_000
# A script takes one place in the chain of waiting callers, as a composing tool does
# (dyntools/capabilities/hostcalls.py): the tools it calls may nest this deep below it.
MAX_DEPTH = MAX_TOOL_DEPTH - 1
DEFAULT_MAX_OUTPUT = 64 * 1024
MAX_OUTPUT = 1024 * 1024
# `limits=` keys, named as the CLI's options are.
KEYS = ("timeout", "max_tool_calls", "max_depth", "max_output")


@dataclass(frozen=True, slots=True)
class RunLimits:
    """`timeout` (seconds, the whole run), `max_tool_calls`, `max_depth` (how deep the tools
    a script calls may compose other tools: 1 lets them compose none) and `max_output`
    (bytes the script may print). Checked when made: `UsageError` names the bad one."""

    timeout: float = DEFAULT_TIMEOUT_S
    max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS
    max_depth: int = MAX_DEPTH
    max_output: int = DEFAULT_MAX_OUTPUT

    def __post_init__(self) -> None:
        timeout = self.timeout
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or \
                not (math.isfinite(timeout) and 0 < timeout <= MAX_SECONDS):
            raise UsageError(f"timeout must be a number of seconds above 0 and at most "
                             f"{MAX_SECONDS:g}, got {timeout!r}")
        for name, low, high in (("max_tool_calls", 0, MAX_TOOL_CALLS),
                                ("max_depth", 1, MAX_DEPTH),
                                ("max_output", 1, MAX_OUTPUT)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise UsageError(f"{name} must be a whole number from {low} to {high}, "
                                 f"got {value!r}")

    @classmethod
    def from_value(cls, value: RunLimits | Mapping[str, Any] | None) -> RunLimits:
        """`limits=` as run_code takes it: None (the defaults), a RunLimits, or a mapping of
        some of `KEYS`."""
        if value is None:
            return cls()
        if isinstance(value, RunLimits):
            return value
        if not isinstance(value, Mapping):
            raise UsageError(f"limits must be a mapping of {', '.join(KEYS)}, got "
                             f"{type(value).__name__}")
        unknown = sorted(str(key) for key in value if key not in KEYS)
        if unknown:
            raise UsageError(f"unknown limit(s) {', '.join(unknown)}; known: {', '.join(KEYS)}")
        return cls(**{str(key): item for key, item in value.items()})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
