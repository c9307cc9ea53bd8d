"""The sandbox's default minimum: the OS layers that must be active before tool code runs.

No single OS layer stops every runtime probe on its own (docs/sandbox.md's table: the best
alone stop 5 of 8); these sets of layers do, each 8 of 8 with the Python layer off, and
`tests/sandbox/test_layer_matrix.py` runs each of them against the probes:

    seccomp + mountns + userns   seccomp closes sockets, fork and exec; the minimal root
                                 (a mount namespace, built inside a user namespace) closes
                                 the host's files, its /proc and its socket files
    seccomp + landlock_fs        the same, with Landlock's read-only file rules in place of
                                 the minimal root

A worker whose verified layers (the host's view in /proc, sandbox/kernel_view.py) hold none
of these sets is stopped before the tool's module body runs, with one message naming the
missing layers, `dyntools doctor` and the opt-in. The opt-in (`--allow-weaker-sandbox`,
DYNTOOLS_ALLOW_WEAKER_SANDBOX=1, `Dyntools(..., allow_weaker_sandbox=True)`) lowers this
minimum only: the layers named by `require_layers` are required whatever the opt-in says.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

# Any one of these sets, every layer in it active, is the default minimum.
MINIMUM_SANDBOX: tuple[frozenset[str], ...] = (
    frozenset({"seccomp", "mountns", "userns"}),
    frozenset({"seccomp", "landlock_fs"}),
)
MINIMUM_TEXT = "seccomp, and mountns with userns or landlock_fs"
ALLOW_WEAKER_ENV = "DYNTOOLS_ALLOW_WEAKER_SANDBOX"
OPT_IN_TEXT = (f"--allow-weaker-sandbox, {ALLOW_WEAKER_ENV}=1 or "
               "Dyntools(..., allow_weaker_sandbox=True)")


def _active(layers: Mapping[str, Any], name: str) -> bool:
    entry = layers.get(name)
    return isinstance(entry, Mapping) and entry.get("active") is True


def missing_for_minimum(layers: Mapping[str, Any]) -> tuple[str, ...]:
    """() when the verified `layers` ({name: {"active": bool, ...}}) meet the minimum; else
    every layer that is missing from some set of it, sorted (any one set completed would
    do). A layer that is absent or not plainly `True` counts as missing."""
    gaps = [frozenset(name for name in needed if not _active(layers, name))
            for needed in MINIMUM_SANDBOX]
    if any(not gap for gap in gaps):
        return ()
    return tuple(sorted(frozenset().union(*gaps)))


def allow_weaker_from_env(environ: Mapping[str, str] | None = None) -> bool:
    """Whether DYNTOOLS_ALLOW_WEAKER_SANDBOX opts in: exactly `1` does; anything else
    (unset, empty, `0`, `true`) does not."""
    return (os.environ if environ is None else environ).get(ALLOW_WEAKER_ENV) == "1"


def resolve_allow_weaker(explicit: bool | None) -> bool:
    """The opt-in of a caller that may pass one: `explicit` when given, else the
    environment's."""
    return allow_weaker_from_env() if explicit is None else bool(explicit)


def env_verdict(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What `dyntools doctor` shows of the environment variable: its value and whether it
    opts in."""
    value = (os.environ if environ is None else environ).get(ALLOW_WEAKER_ENV)
    return {"name": ALLOW_WEAKER_ENV, "value": value,
            "allows_weaker": allow_weaker_from_env(environ)}


def weaker_notice(*, flag: bool) -> str:
    """What a server says at start when the operator opted in (`flag`: by the option, else
    by the environment)."""
    source = "--allow-weaker-sandbox" if flag else f"{ALLOW_WEAKER_ENV}=1"
    return (f"warning: {source}: tool code may run where the sandbox is below its default "
            f"minimum ({MINIMUM_TEXT}); the audit log records each such worker")


def below_minimum_message(layers: Mapping[str, Any], missing: tuple[str, ...]) -> str:
    """The one message for a worker stopped below the minimum."""
    def detail(name: str) -> str:
        entry = layers.get(name)
        text = entry.get("detail") if isinstance(entry, Mapping) else None
        return f"{name} ({text})" if text else f"{name} (not reported)"

    return (f"the sandbox here is weaker than the default minimum ({MINIMUM_TEXT}): not "
            f"active: {', '.join(detail(name) for name in missing)}; tool code does not run "
            f"on it. `dyntools doctor` shows each layer and why it is missing; to run anyway, "
            f"opt in with {OPT_IN_TEXT}")
