"""What a test needs of the machine, and what happens when it is missing.

Under `make test` and CI (`DYNTOOLS_REQUIRE_EXTRAS=1`, or `CI` set) a missing framework,
browser, cluster or OS feature is an error: those runs must prove everything, and a skip
there is silent (the suite is green and proved less). Elsewhere the test skips and says what
to install."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def env_without_dyntools(**extra: str) -> dict[str, str]:
    """This process's environment without its `DYNTOOLS_*` variables (an engineer's registry,
    keys or policies, `make test`'s own switches), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DYNTOOLS_")}
    env.update(extra)
    return env


def everything_required() -> bool:
    return os.environ.get("DYNTOOLS_REQUIRE_EXTRAS") == "1" or bool(os.environ.get("CI"))


def lacking(reason: str, *, module_level: bool = False) -> NoReturn:
    """This machine lacks what the test needs (`reason` says what): fail under `make test`
    and CI, skip elsewhere."""
    if everything_required():
        pytest.fail(f"{reason} (DYNTOOLS_REQUIRE_EXTRAS=1 or CI: required here)", pytrace=False)
    pytest.skip(reason, allow_module_level=module_level)
