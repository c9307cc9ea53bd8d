"""The suite's time budget (under 10 minutes on 2 cores, `make test`) and what runs past it.

`make fuzz` sets DYNTOOLS_FUZZ=1: the property tests then draw many more examples, the large
walks run whole and the random-interrupt soak runs a hundred rounds (five in the suite). A
test whose example count or sample this module sets proves the same claim in both; the
suite's share is what fits the budget. A test marked `fuzz` (pyproject.toml) runs under
`make fuzz` only."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def fuzzing() -> bool:
    return os.environ.get("DYNTOOLS_FUZZ") == "1"


def examples(in_suite: int, in_fuzz: int) -> int:
    """`max_examples` for a property test: `in_suite` under `make test`, `in_fuzz` under
    `make fuzz`."""
    return in_fuzz if fuzzing() else in_suite


def sample(items: Sequence[T], every: int) -> list[T]:
    """Every `every`-th item (deterministic: the same files each run), or all of them under
    `make fuzz`."""
    return list(items) if fuzzing() else list(items)[::every]
