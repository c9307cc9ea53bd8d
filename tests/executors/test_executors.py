"""Choosing an executor, and the node side (`SandboxHost`) as plain Python, without Ray."""

from __future__ import annotations

import enum
import hashlib
import threading
import time
from pathlib import Path

import pytest

from dyntools.errors import UsageError
from dyntools.executors import LocalExecutor, PoolSettings, build_executor, executor_name
from dyntools.executors.node_actor import (
    ERROR,
    NEED_SOURCE,
    OK,
    SandboxHost,
    Shipment,
    pack,
    unpack,
)
from dyntools.gate.policy import Policy
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry
from tests.support.waiting import HANG_GUARD_S, wait_for

from .conftest import nap_source

ESCAPE = b'''"""Tries to escape."""
NAME = "nap_tool"
DESCRIPTION = "Tries to escape."
PARAMS = {"type": "object"}


def run(params):
    return {"x": ().__class__.__base__.__subclasses__()}
'''


def test_the_default_executor_is_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DYNTOOLS_EXECUTOR", raising=False)
    assert executor_name(None) == "local"
    assert isinstance(build_executor(), LocalExecutor)
    monkeypatch.setenv("DYNTOOLS_EXECUTOR", "RAY")
    assert executor_name(None) == "ray"
    assert executor_name("local") == "local"  # the argument wins over the environment


def test_an_unknown_executor_or_a_stray_address_is_a_usage_error(
        monkeypatch: pytest.MonkeyPatch, registry: Registry) -> None:
    monkeypatch.delenv("DYNTOOLS_EXECUTOR", raising=False)
    with pytest.raises(UsageError, match="unknown executor 'dask'"):
        Dyntools(registry, executor="dask")
    with pytest.raises(UsageError, match="executor is 'local'"):
        Dyntools(registry, executor="local", ray_address="127.0.0.1:6379")


def test_the_ray_executor_reads_its_address_from_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DYNTOOLS_EXECUTOR", "ray")
    monkeypatch.setenv("DYNTOOLS_RAY_ADDRESS", "127.0.0.1:6399")
    executor = build_executor()
    assert executor.name == "ray" and getattr(executor, "address", None) == "127.0.0.1:6399"
    assert build_executor(ray_address_="127.0.0.1:7000").address == "127.0.0.1:7000"  # type: ignore[attr-defined]


def test_the_local_executor_serves_dyntools_calls(registry: Registry) -> None:
    with Dyntools(registry, executor="local") as dt:
        assert dt.call("nap_tool", {"ms": 1}) == {"tag": "v1"}


# ------------------------------------------------------------------------ the node, no Ray


def _shipment(source: bytes, policy: Policy) -> Shipment:
    return Shipment(source, PoolSettings(policy=policy, size=1), "dyntools_nap_v1",
                    str(Path("/driver/registry/nap_tool/v1.py")))


def _key(source: bytes, version: int = 1) -> tuple[str, int, str]:
    return ("nap_tool", version, hashlib.sha256(source).hexdigest())


def test_a_node_runs_bytes_whose_hash_is_the_registrys(policy: Policy) -> None:
    host = SandboxHost()
    source = nap_source("v1")
    try:
        assert host.call(_key(source), {}, None) == (NEED_SOURCE,)  # no bytes, no pool
        assert host.call(_key(source), {"ms": 1}, None, _shipment(source, policy)) == (
            OK, {"tag": "v1"})
        assert host.call(_key(source), {}, None) == (OK, {"tag": "v1"})  # warm, no bytes
        assert host.stats()["loaded"] == 1
    finally:
        host.shutdown()


def test_a_node_refuses_a_tampered_byte_stream(policy: Policy) -> None:
    host = SandboxHost()
    source = nap_source("v1")
    tampered = source.replace(b'"v1"', b'"pwned"')
    reply = host.call(_key(source), {}, None, _shipment(tampered, policy))
    assert reply[0] == ERROR and reply[1] == "SourceRefused"
    assert reply[3]["check"] == "sha256" and reply[3]["expected"] == _key(source)[2]
    assert host.stats()["pools"] == {} and host.stats()["refused"] == 1


def test_a_node_regates_bytes_whose_hash_matches(policy: Policy) -> None:
    """Bytes the registry never approved, sent with their own (matching) digest: the node's
    gate refuses them before anything is compiled."""
    host = SandboxHost()
    reply = host.call(_key(ESCAPE), {}, None, _shipment(ESCAPE, policy))
    assert reply[0] == ERROR and reply[1] == "SourceRefused"
    assert reply[3]["check"] == "gate" and reply[3]["codes"]
    assert host.stats()["pools"] == {}


def test_a_full_node_queue_answers_overloaded(policy: Policy) -> None:
    host = SandboxHost(max_queue=1)
    source = nap_source("v1")
    key, shipment = _key(source), _shipment(source, policy)
    try:
        assert host.load(key, shipment)[0] == OK
        slow = threading.Thread(target=host.call, args=(key, {"ms": 800}, None))
        slow.start()
        assert wait_for(lambda: host.stats()["in_flight"] > 0, timeout=HANG_GUARD_S)
        reply = host.call(key, {}, None)
        assert reply[0] == ERROR and reply[1] == "Overloaded"
        slow.join(5)
        assert host.call(key, {}, None) == (OK, {"tag": "v1"})
    finally:
        host.shutdown()


def test_a_retired_pool_is_rebuilt_from_the_next_shipment(policy: Policy) -> None:
    host = SandboxHost()
    source = nap_source("v1")
    key, shipment = _key(source), _shipment(source, policy)
    try:
        assert host.load(key, shipment)[0] == OK
        assert host.retire("nap_tool", 1) == 1
        assert host.call(key, {}, None) == (NEED_SOURCE,)
        assert host.call(key, {}, None, shipment) == (OK, {"tag": "v1"})
    finally:
        host.shutdown()


def test_a_node_takes_calls_in_batches_and_answers_as_they_finish(policy: Policy) -> None:
    """`submit` starts a batch; `poll` brings back what is ready: a fast call is not held up
    by a slow one sent with it."""
    host = SandboxHost()
    source = nap_source("v1")
    key = _key(source)
    shipment = Shipment(source, PoolSettings(policy=policy, size=2), "dyntools_nap_v1",
                        "/driver/registry/nap_tool/v1.py")
    try:
        assert host.load(key, shipment)[0] == OK
        assert host.submit([(1, key, {"ms": 1500}, None, None, False),
                            (2, key, {"ms": 1}, None, None, False)]) == 2
        assert host.poll(10.0) == [(2, (OK, {"tag": "v1"}))]
        assert host.poll(10.0) == [(1, (OK, {"tag": "v1"}))]
        assert host.poll(0) == []
        assert host.stats()["batches"] == 1
    finally:
        host.shutdown()


def test_a_lone_call_comes_back_in_its_own_exchange(policy: Policy) -> None:
    host = SandboxHost()
    source = nap_source("v1")
    key = _key(source)
    try:
        assert host.load(key, _shipment(source, policy))[0] == OK
        assert host.exchange([(7, key, {"ms": 1}, None, None, False)], 5.0) == [(7, (OK, {"tag": "v1"}))]
        # Its worker busy, the next lone call goes through the queue and still comes back.
        slow = threading.Thread(target=host.call, args=(key, {"ms": 800}, None))
        slow.start()
        assert wait_for(lambda: host.stats()["in_flight"] > 0, timeout=HANG_GUARD_S)
        assert host.exchange([(8, key, {}, None, None, False)], 5.0) == [(8, (OK, {"tag": "v1"}))]
        slow.join(5)
    finally:
        host.shutdown()


class _Level(enum.IntEnum):
    LOW = 1


class _Dict(dict):  # type: ignore[type-arg]
    pass


def test_plain_requests_and_replies_travel_as_one_marshal_blob(policy: Policy) -> None:
    """What crosses a Ray task is packed when marshal gives it back exactly; anything else
    (a Shipment, a bytearray marshal would turn into bytes, a subclass, nesting too deep)
    stays the list it was, for Ray to pickle as before."""
    key = ("nap_tool", 1, "0" * 64)
    plain = [(1, key, {"s": "é\ud800", "b": b"\x00", "t": (1, 2.5, None), "l": [True]}, 2.0,
              None, False)]
    blob = pack(plain)
    assert type(blob) is bytes
    assert unpack(blob) == plain
    assert type(unpack(blob)[0][2]["t"]) is tuple and type(unpack(blob)[0][1]) is tuple
    shipment = Shipment(b"x", PoolSettings(policy=policy), "m", "p")
    deep: list[object] = []
    for _ in range(3000):
        deep = [deep]
    cycle: dict[str, object] = {}
    cycle["self"] = cycle
    for odd in ([(1, key, {}, None, shipment, False)],
                [(1, key, {"b": bytearray(b"x")}, None, None, False)],
                [(1, key, _Dict(a=1), None, None, False)],
                [(1, (ERROR, "SandboxError", "m", {"level": _Level.LOW}))],
                [(1, key, {"d": deep}, None, None, False)],
                [(1, key, cycle, None, None, False)]):
        assert pack(odd) is odd
        assert unpack(odd) is odd


def test_a_node_answers_packed_requests_packed(policy: Policy) -> None:
    host = SandboxHost()
    source = nap_source("v1")
    key = _key(source)
    try:
        assert host.load(key, _shipment(source, policy))[0] == OK
        reply = host.exchange(pack([(7, key, {"ms": 1}, None, None, False)]), 5.0)
        assert type(reply) is bytes and unpack(reply) == [(7, (OK, {"tag": "v1"}))]
        # The batched path: a packed submit, a packed poll; a list still gets a list.
        assert host.submit(pack([(8, key, {"ms": 1}, None, None, False)])) == 1
        polled = host.poll(10.0, True)
        assert type(polled) is bytes and unpack(polled) == [(8, (OK, {"tag": "v1"}))]
        assert host.exchange([(9, key, {}, None, None, False)], 5.0) == [(9, (OK, {"tag": "v1"}))]
    finally:
        host.shutdown()


# ------------------------------------------------------- capability calls, on the node alone

FETCH = b'''"""Fetches a page through the host."""
import host
import time

NAME = "fetch_page"
DESCRIPTION = "Fetches a page through the host."
PARAMS = {"type": "object", "properties": {"url": {"type": "string"}}}
CAPABILITIES = {"http": ["127.0.0.1:8080"]}


def run(params):
    page = host.http_get(params["url"])
    return {"status": page["status"], "text": page["text"]}
'''
URL = "http://127.0.0.1:8080/x"


def _fetch_node(policy: Policy) -> tuple[SandboxHost, tuple[str, int, str]]:
    host = SandboxHost()
    key = ("fetch_page", 1, hashlib.sha256(FETCH).hexdigest())
    shipment = Shipment(FETCH, PoolSettings(policy=policy, size=1), "dyntools_fetch_v1",
                        "/driver/registry/fetch_page/v1.py")
    assert host.load(key, shipment)[0] == OK
    return host, key


def test_a_brokered_call_parks_at_each_request_until_the_driver_answers(
        policy: Policy) -> None:
    """The node never answers a capability request itself: the frame comes back as the
    call's interim reply, and the worker goes on with the driver's answer."""
    from dyntools.executors.node_actor import REQUEST

    host, key = _fetch_node(policy)
    try:
        assert host.submit([(1, key, {"url": URL}, None, None, True)]) == 1
        [(rid, (kind, frame))] = host.poll(10.0)
        assert (rid, kind) == (1, REQUEST)
        assert frame == {"op": "http", "method": "GET", "url": URL, "params": None,
                         "headers": None}
        assert host.stats()["parked"] == 1
        assert host.poll(0.2) == []  # parked: nothing more until the answer
        assert host.resume(1, {"ok": {"status": 200, "headers": {}, "text": "hi"}})
        assert host.poll(10.0) == [(1, (OK, {"status": 200, "text": "hi"}))]
        assert host.stats()["parked"] == 0 and host.stats()["host_requests"] == 1
        assert not host.resume(1, {"ok": {}})  # nothing waits any more
    finally:
        host.shutdown()


def test_a_lone_brokered_call_brings_its_request_back_in_its_exchange(policy: Policy) -> None:
    """A lone call normally runs inside its `exchange` task; a brokered one must not, or
    its parked request could never leave the node."""
    from dyntools.executors.node_actor import REQUEST

    host, key = _fetch_node(policy)
    try:
        started = time.monotonic()
        [(rid, (kind, _))] = host.exchange([(5, key, {"url": URL}, None, None, True)], 10.0)
        # Back with the exchange, not after its 10 s window (a hang guard, not a speed claim).
        assert (rid, kind) == (5, REQUEST) and time.monotonic() - started < 9.0
        assert host.resume(5, {"ok": {"status": 201, "headers": {}, "text": ""}})
        assert host.poll(10.0) == [(5, (OK, {"status": 201, "text": ""}))]
    finally:
        host.shutdown()


def test_a_refused_request_kills_the_worker_and_the_next_call_works(policy: Policy) -> None:
    host, key = _fetch_node(policy)
    try:
        host.submit([(1, key, {"url": URL}, None, None, True)])
        assert host.poll(10.0)[0][0] == 1
        assert host.resume(1, None)  # the driver's host raised: kill
        [(rid, reply)] = host.poll(10.0)
        assert rid == 1 and reply[0] == ERROR and reply[1] == "CapabilityViolation"
        assert host.stats()["pools"]["fetch_page@1"]["replaced"] == 1  # never reused
        host.submit([(2, key, {"url": URL}, None, None, True)])
        assert host.poll(10.0)[0][0] == 2
        host.resume(2, {"ok": {"status": 200, "headers": {}, "text": "again"}})
        assert host.poll(10.0) == [(2, (OK, {"status": 200, "text": "again"}))]
    finally:
        host.shutdown()


def test_a_driver_that_never_answers_is_a_timeout_on_the_node(policy: Policy) -> None:
    host, key = _fetch_node(policy)
    try:
        started = time.monotonic()
        host.submit([(1, key, {"url": URL}, 0.5, None, True)])
        assert host.poll(10.0)[0][0] == 1  # the request; no answer is sent
        [(rid, reply)] = host.poll(10.0)
        assert rid == 1 and reply[0] == ERROR and reply[1] == "SandboxTimeout"
        assert "did not answer" in reply[2] and time.monotonic() - started < 9.0  # hang guard
        assert host.stats()["parked"] == 0
        assert host.stats()["pools"]["fetch_page@1"]["replaced"] == 1
    finally:
        host.shutdown()


def test_an_unbrokered_call_that_asks_the_host_is_killed(policy: Policy) -> None:
    """Sent without `brokered`, a call has no host: its first request kills the worker."""
    host, key = _fetch_node(policy)
    try:
        reply = host.call(key, {"url": URL}, None)
        assert reply[0] == ERROR and reply[1] == "CapabilityViolation"
        assert host.stats()["parked"] == 0
    finally:
        host.shutdown()
