"""A host without seccomp, for the fail-closed tests: this machine has every layer, so the
tests take one away as a host that lacks it would, with no switch in dyntools itself.

The host builds the seccomp filter (dyntools/sandbox/seccomp_filter.py) and a worker without
one runs unfiltered; the host's view in /proc then shows `Seccomp: 0`, as on a machine whose
libseccomp is missing. In this process, `no_seccomp(monkeypatch)` makes the filter's build
fail; for a dyntools process started by a test, `env_without_seccomp(folder)` puts a
`sitecustomize` on its PYTHONPATH that does the same before any command runs (the worker
starts with `-I -S` and never reads it). Neither sets the opt-in: each test that wants it
passes it itself.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.environment import env_without_dyntools

SIMULATED = "simulated for the test: libseccomp is not usable here"

SITECUSTOMIZE = f'''
from dyntools.sandbox import seccomp_filter


def _unavailable():
    raise seccomp_filter.SeccompUnavailable({SIMULATED!r})


seccomp_filter.seccomp_program = _unavailable
'''


def no_seccomp(monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process: every worker started from now on has no seccomp filter."""
    from dyntools.sandbox import seccomp_filter

    def unavailable() -> bytes:
        raise seccomp_filter.SeccompUnavailable(SIMULATED)

    monkeypatch.setattr(seccomp_filter, "seccomp_program", unavailable)


def env_without_seccomp(folder: Path, **extra: str) -> dict[str, str]:
    """The environment of a dyntools process on a host without seccomp: the DYNTOOLS_*
    variables of this process dropped, `extra` added."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = env_without_dyntools()
    env["PYTHONPATH"] = os.pathsep.join(
        [str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.update(extra)
    return env
