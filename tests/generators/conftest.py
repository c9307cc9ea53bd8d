from __future__ import annotations

from collections.abc import Iterator

import pytest

from dyntools.gate.policy import Policy, load_policy

from .flavors import FLAVORS, Flavor
from .stub_server import StubServer


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture
def policy() -> Policy:
    return load_policy()


@pytest.fixture(params=FLAVORS, ids=lambda f: f.name)
def flavor(request: pytest.FixtureRequest) -> Flavor:
    return request.param
