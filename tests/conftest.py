"""Suite-wide isolation."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

# The standing mutation check (tests/support/layer_mutants.py): its hooks and fixture, here.
from tests.support.layer_mutants import (  # noqa: F401
    _layer_switched_off,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_makereport,
)


@pytest.fixture(autouse=True)
def _trust_state_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes the accepted decision-chain heads (dyntools/registry/freshness.py) to
    the real home: each test gets its own state folder, which the CLI subprocesses inherit
    (XDG_STATE_HOME is not a DYNTOOLS_ variable, so helpers that drop those keep it)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))
    monkeypatch.delenv("DYNTOOLS_TRUST_STATE", raising=False)


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
