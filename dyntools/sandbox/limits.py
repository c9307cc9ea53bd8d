"""Limits for one sandboxed call and the names of the isolation layers."""

from __future__ import annotations

from typing import Any, NamedTuple

# Every layer the worker can apply, in the order it applies them. `restricted` is layer 2 of
# the design (RestrictedPython with runtime guards); the others are OS layers.
LAYERS: tuple[str, ...] = (
    "restricted",
    "audit_hook",
    "rlimits",
    "no_new_privs",
    "userns",
    "netns",
    "mountns",
    "landlock_fs",
    "landlock_net",
    "landlock_scope",
    "seccomp",
    "capabilities",
)


# The longest any of the limits in seconds may be (a day): an infinite or NaN timeout would
# never end a call, and the CPU limit is an integer count of seconds for setrlimit.
MAX_SECONDS = 86_400.0


class _Fields(NamedTuple):
    timeout_s: float = 5.0
    memory_mb: int = 256
    cpu_s: float | None = None
    max_output_bytes: int = 64 * 1024
    max_result_bytes: int = 1024 * 1024
    max_params_bytes: int = 4 * 1024 * 1024
    # One answer of the host to a capability request (a response, a composed tool's result).
    max_host_answer_bytes: int = 8 * 1024 * 1024
    max_open_files: int = 64
    startup_timeout_s: float = 10.0


class SandboxLimits(_Fields):
    """What one call may consume. `cpu_s` defaults to the timeout plus one second.

    Immutable and checked when made (`__new__`, `_make` and `_replace` check)."""

    __slots__ = ()

    def __new__(cls, timeout_s: float = 5.0, memory_mb: int = 256, cpu_s: float | None = None,
                max_output_bytes: int = 64 * 1024, max_result_bytes: int = 1024 * 1024,
                max_params_bytes: int = 4 * 1024 * 1024,
                max_host_answer_bytes: int = 8 * 1024 * 1024, max_open_files: int = 64,
                startup_timeout_s: float = 10.0) -> SandboxLimits:
        for name, seconds in (("timeout_s", timeout_s), ("cpu_s", cpu_s),
                              ("startup_timeout_s", startup_timeout_s)):
            # `not 0 < x <= MAX` also refuses NaN (every comparison with it is false)
            if seconds is not None and not 0 < seconds <= MAX_SECONDS:
                raise ValueError(f"{name} must be a number of seconds above 0 and at most "
                                 f"{MAX_SECONDS:g}, got {seconds!r}")
        if memory_mb <= 0:
            raise ValueError(f"memory_mb must be positive, got {memory_mb!r}")
        for name, value in (("max_output_bytes", max_output_bytes),
                            ("max_result_bytes", max_result_bytes),
                            ("max_params_bytes", max_params_bytes),
                            ("max_host_answer_bytes", max_host_answer_bytes),
                            ("max_open_files", max_open_files)):
            if value <= 0:
                raise ValueError(f"{name} must be positive")
        return super().__new__(cls, timeout_s, memory_mb, cpu_s, max_output_bytes,
                               max_result_bytes, max_params_bytes, max_host_answer_bytes,
                               max_open_files, startup_timeout_s)

    @classmethod
    def _make(cls, iterable: Any) -> SandboxLimits:  # type: ignore[override]
        """From a sequence of values, checked as a new one is (NamedTuple's own is not)."""
        return cls(*iterable)

    def _replace(self, **changes: Any) -> SandboxLimits:
        """A copy with `changes`, checked as a new one is (NamedTuple's own skips `__new__`)."""
        return SandboxLimits(**{**self._asdict(), **changes})

    @property
    def cpu_seconds(self) -> int:
        return max(1, int(self.cpu_s if self.cpu_s is not None else self.timeout_s + 1.0))


def parse_layer_names(text: str) -> frozenset[str]:
    """`--require-layers` value: a comma list of layer names, or `all`."""
    names = {part.strip() for part in text.split(",") if part.strip()}
    if "all" in names:
        return frozenset(LAYERS)
    unknown = sorted(names - set(LAYERS))
    if unknown:
        raise ValueError(
            f"unknown layer(s) {', '.join(map(repr, unknown))}; known: {', '.join(LAYERS)}, all"
        )
    return frozenset(names)
