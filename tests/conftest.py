"""Suite-wide isolation."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _structlog_as_each_test_found_it() -> Iterator[None]:
    """Every test starts with structlog unconfigured, as a fresh process has it.

    `structlog.testing.capture_logs()` restores the processors it replaced by calling
    `structlog.configure`, which leaves structlog marked as configured by the host. dyntools
    then hands its events to structlog (docs: dyntools/base/log.py, case 3), whose defaults print
    to stdout: a later test that reads stdout depended on which tests ran before it."""
    yield
    structlog = sys.modules.get("structlog")
    if structlog is not None:
        structlog.reset_defaults()
