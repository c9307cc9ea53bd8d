"""Fixtures for registry tests: the default policy and an opened registry in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog

from dyntools.gate.policy import Policy, load_policy
from dyntools.registry import Registry


@pytest.fixture
def policy() -> Policy:
    return load_policy()


@pytest.fixture
def registry(tmp_path: Path, policy: Policy) -> Registry:
    return Registry.open(tmp_path / "reg", policy)


@pytest.fixture(autouse=True)
def _fresh_logging():
    """CLI commands configure structlog for their own stderr; do not leak that to other tests."""
    yield
    structlog.reset_defaults()
