"""Fixtures for registry tests: the default policy and an opened registry in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from dyntools.gate.policy import Policy, load_policy
from dyntools.registry import Registry


@pytest.fixture
def policy() -> Policy:
    return load_policy()


@pytest.fixture
def registry(tmp_path: Path, policy: Policy) -> Registry:
    return Registry.open(tmp_path / "reg", policy)
