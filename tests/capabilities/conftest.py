"""Fixtures: local servers, and a broker factory whose policy names what a test allows."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from dyntools.capabilities import BrokerSession, HttpBroker, policy_from_mapping
from dyntools.gate.capabilities import parse_capabilities

from .servers import LocalServer

TOKEN = "tok-3f9a8b7c6d5e4f30"


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


@pytest.fixture
def other_server() -> Iterator[LocalServer]:
    """A second server on 127.0.0.2 (another address of the loopback network)."""
    with LocalServer("127.0.0.2") as srv:
        yield srv


class Harness:
    """Builds brokers and sessions; keeps the audit events; closes the brokers."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.brokers: list[HttpBroker] = []

    def broker(self, allow: list[str], *, private: list[str] | None = None,
               secrets: dict[str, Any] | None = None, resolver: Callable[..., Any] | None = None,
               environ: dict[str, str] | None = None, ssl_context: Any = None,
               **http: Any) -> HttpBroker:
        policy = policy_from_mapping({
            "http": {"allow": allow,
                     "allow_private": ["127.0.0.1/32"] if private is None else private,
                     **http},
            "secrets": secrets or {},
        }, source="test.toml")
        made = HttpBroker(policy, resolver=resolver, audit=self.events.append,
                          environ={"DEMO_TOKEN": TOKEN} if environ is None else environ,
                          ssl_context=ssl_context)
        self.brokers.append(made)
        return made

    def session(self, broker: HttpBroker, declared: list[str], *, secrets: list[str] = (),
                budget: float = 10.0) -> BrokerSession:
        caps = parse_capabilities({"http": declared, "secrets": list(secrets)})
        return broker.session(tool="probe", version=1, declared=caps,
                              deadline=time.monotonic() + budget)

    def close(self) -> None:
        for made in self.brokers:
            made.close()


@pytest.fixture
def harness() -> Iterator[Harness]:
    made = Harness()
    yield made
    made.close()


def get(session: BrokerSession, url: str, **extra: Any) -> dict[str, Any]:
    return session.request({"method": "GET", "url": url, **extra})
