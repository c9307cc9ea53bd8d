"""Attacks on the broker: every way a tool (or a server it talks to) might reach an address
the operator did not allow. Each test checks the refusal AND that nothing reached the server
the attack aimed at."""

from __future__ import annotations

import json
import time

import pytest

from dyntools.capabilities import HttpFailure
from dyntools.errors import CapabilityViolation
from tests.support.waiting import HANG_GUARD_S

from .conftest import get
from .servers import HangServer


def refused(session, url, code=None, **extra):
    with pytest.raises(CapabilityViolation) as info:
        get(session, url, **extra)
    if code is not None:
        assert info.value.details["code"] == code, info.value.message
    return info.value


# ------------------------------------------------------- numeric and odd address forms

NUMERIC_FORMS = [
    "2130706433",         # decimal
    "017700000001",       # octal, one number
    "0177.0.0.1",         # octal dotted
    "0x7f.0.0.1",         # hex dotted
    "0x7f000001",         # hex, one number
    "0x7f.1",             # hex short
    "127.1",              # short
    "127.0.1",            # short
    "127.000.000.001",    # leading zeros
    "127.0.0.1.",         # trailing dot
    "0",                  # 0.0.0.0 to some stacks
    "[::ffff:127.0.0.1]",  # IPv4-mapped
    "[::ffff:7f00:1]",
    "[::127.0.0.1]",      # IPv4-compatible
    "[0:0:0:0:0:ffff:127.0.0.1]",
    "[::1]",
    "localhost",
    "127.0.0.1%2e",
    "%31%32%37.0.0.1",
    "１２７.０.０.１",      # fullwidth digits
]


@pytest.mark.parametrize("host", NUMERIC_FORMS)
def test_other_spellings_of_an_allowed_address_never_match(harness, server, host):
    # 127.0.0.1:PORT is declared, in the policy and in allow_private: only that exact
    # spelling may reach it.
    calls = []
    broker = harness.broker([server.hostport],
                            resolver=lambda h, p: calls.append(h) or ["127.0.0.1"])
    session = harness.session(broker, [server.hostport])
    with pytest.raises(CapabilityViolation):
        get(session, f"http://{host}:{server.port}/echo")
    assert server.connections == 0 and server.requests == []
    assert calls == []
    assert get(session, server.url("/echo"))["status"] == 200  # the exact form works


@pytest.mark.parametrize("host", ["[::1]", "[::ffff:127.0.0.1]", "[::ffff:a9fe:a9fe]",
                                  "[fd00:ec2::254]", "[fe80::1]", "[::]", "0.0.0.0",
                                  "169.254.169.254", "100.100.100.200", "10.0.0.1",
                                  "192.168.1.1", "172.16.0.1", "100.64.0.1", "224.0.0.1",
                                  "255.255.255.255", "[2002:7f00:1::]", "[64:ff9b::a9fe:a9fe]"])
def test_a_declared_private_literal_is_refused_without_allow_private(harness, host):
    broker = harness.broker([host], private=[])
    session = harness.session(broker, [host])
    refused(session, f"http://{host}/", "http.private_address")


# --------------------------------------------------------------- names and resolvers

@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.0.0.2", "0.0.0.0", "10.1.2.3", "172.31.0.1", "192.168.0.1",
    "100.64.1.1", "169.254.169.254", "100.100.100.200", "::1", "::", "::ffff:127.0.0.1",
    "::ffff:8.8.8.8", "::127.0.0.1", "fd00:ec2::254", "fc00::1", "fe80::1", "fe80::1%1",
    "2002:a00:1::", "64:ff9b::7f00:1", "2001:0:4136:e378:8000:63bf:80ff:fffe", "ff02::1",
    "224.0.0.251", "255.255.255.255", "240.0.0.1", "198.18.0.1", "192.0.2.1", "2001:db8::1",
])
def test_a_name_resolving_to_a_refused_address_is_refused(harness, address):
    broker = harness.broker(["evil.test"], private=[], resolver=lambda h, p: [address])
    session = harness.session(broker, ["evil.test"])
    error = refused(session, "http://evil.test/", "http.private_address")
    assert error.details["host"] == "evil.test"


def test_a_name_resolving_to_loopback_is_refused_and_nothing_connects(harness, server):
    host = f"evil.test:{server.port}"
    broker = harness.broker([host], private=[], resolver=lambda h, p: ["127.0.0.1"])
    session = harness.session(broker, [host])
    refused(session, f"http://{host}/echo", "http.private_address")
    assert server.connections == 0


def test_every_resolved_address_is_checked_not_only_the_first(harness, server):
    host = f"mixed.test:{server.port}"
    broker = harness.broker([host], private=[],
                            resolver=lambda h, p: ["93.184.215.14", "127.0.0.1"])
    session = harness.session(broker, [host])
    refused(session, f"http://{host}/echo", "http.private_address")
    assert server.connections == 0


def test_rebinding_the_connection_goes_to_the_checked_address(harness, server, other_server):
    # 127.0.0.1 is allowed (allow_private); 127.0.0.2 is not. The resolver answers the
    # allowed address once, then the refused one: a second lookup anywhere between the
    # check and the connect would send the request to other_server.
    calls: list[str] = []

    def rebinding(host, port):
        calls.append(host)
        return ["127.0.0.1"] if len(calls) == 1 else ["127.0.0.2"]

    host = f"rebind.test:{server.port}"
    broker = harness.broker([host, f"rebind.test:{other_server.port}"], resolver=rebinding)
    session = harness.session(broker, [host, f"rebind.test:{other_server.port}"])
    answer = get(session, f"http://{host}/echo")
    assert answer["status"] == 200
    assert calls == ["rebind.test"]
    assert server.connections == 1 and other_server.connections == 0
    assert json.loads(answer["text"])["headers"]["host"] == host  # Host stays the name
    # The next request resolves again and gets the refused address: refused, even though
    # a pooled connection to the checked address is open.
    refused(session, f"http://{host}/echo", "http.private_address")
    refused(session, f"http://rebind.test:{other_server.port}/echo", "http.private_address")
    assert other_server.connections == 0
    assert len(server.requests) == 1


def test_an_unchecked_name_is_never_connected(harness, server):
    # The backend itself refuses a connect without a pin (fail closed), whatever calls it.
    from dyntools.capabilities.pinning import CURRENT_HOP, PinnedBackend, UnpinnedConnect

    assert CURRENT_HOP.get() is None
    with pytest.raises(UnpinnedConnect):
        PinnedBackend().connect_tcp("127.0.0.1", server.port)
    assert server.connections == 0


# ---------------------------------------------------------------- userinfo and parsing

@pytest.mark.parametrize("url", [
    "http://api.example.com@127.0.0.1:{port}/echo",
    "http://api.example.com:80@127.0.0.1:{port}/echo",
    "http://127.0.0.1:{port}#@api.example.com/",
    "http://127.0.0.1:{port}?@api.example.com/",
    "http://api.example.com\\@127.0.0.1:{port}/echo",
    "http://127.0.0.1:{port}\\@api.example.com/",
    "http://api.example.com%40127.0.0.1:{port}/echo",
    "http://127.0.0.1:{port}\\api.example.com/",
    "http://api.example.com:{port}@127.0.0.1:{port}/",
    "http:\\\\127.0.0.1:{port}/",
    "http:/127.0.0.1:{port}/",
    "http:127.0.0.1:{port}/",
    "HTTP://127.0.0.1:{port}/",
    " http://127.0.0.1:{port}/",
])
def test_userinfo_and_parser_tricks_never_reach_an_undeclared_host(harness, server, url):
    looked_up = []
    broker = harness.broker(["api.example.com", server.hostport],
                            resolver=lambda h, p: looked_up.append(h) or ["93.184.215.14"])
    session = harness.session(broker, ["api.example.com"])  # 127.0.0.1 is NOT declared
    with pytest.raises(CapabilityViolation):
        get(session, url.format(port=server.port))
    assert server.connections == 0 and server.requests == []


def test_idn_lookalikes_never_match_a_declared_name(harness):
    broker = harness.broker(["api.example.com"], resolver=lambda h, p: ["93.184.215.14"])
    session = harness.session(broker, ["api.example.com"])
    for host in ("аpi.example.com", "api.exаmple.com", "api.example.com\u200b",
                 "xn--pi-7ld.example.com", "api.example.co"):
        with pytest.raises(CapabilityViolation):
            get(session, f"http://{host}/")


# ------------------------------------------------------------------ CR/LF and controls

@pytest.mark.parametrize("frame", [
    {"url": "http://127.0.0.1:{port}/echo\r\nX-Injected: 1"},
    {"url": "http://127.0.0.1:{port}/echo\nX-Injected: 1"},
    {"url": "http://127.0.0.1:{port}/echo\x00"},
    {"url": "http://127.0.0.1:{port}/echo\u2028"},
    {"url": "http://127.0.0.1:{port}/echo\x85"},
    {"url": "http://127.0.0.1:{port}/echo", "params": {"q": "a\r\nX-Injected: 1"}},
    {"url": "http://127.0.0.1:{port}/echo", "params": {"q\r\nX-Injected: 1": "a"}},
    {"url": "http://127.0.0.1:{port}/echo", "headers": {"X-A": "v\r\nX-Injected: 1"}},
    {"url": "http://127.0.0.1:{port}/echo", "headers": {"X-A": "v\nX-Injected: 1"}},
    {"url": "http://127.0.0.1:{port}/echo", "headers": {"X-A\r\nX-Injected": "1"}},
    {"url": "http://127.0.0.1:{port}/echo", "headers": {"X-A": "v\x00"}},
    {"url": "http://127.0.0.1:{port}/echo", "headers": {"X-A": "v\tw"}},
])
def test_control_characters_are_violations_and_nothing_is_sent(harness, server, frame):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    frame = {**frame, "method": "GET", "url": frame["url"].format(port=server.port)}
    with pytest.raises(CapabilityViolation) as info:
        session.request(frame)
    assert info.value.details["code"] == "http.control_character"
    assert server.requests == []


def test_encoded_crlf_travels_encoded(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    answer = get(session, server.url("/echo%0d%0aX-Injected:%201"), params={"q": "%0d%0a"})
    seen = json.loads(answer["text"])
    assert "x-injected" not in seen["headers"]
    assert seen["path"] == "/echo%0d%0aX-Injected:%201?q=%250d%250a"


# ------------------------------------------------------------------------- redirects

def test_a_redirect_to_loopback_is_refused(harness, server, other_server):
    # The tool declares both; the policy allows both hosts but only 127.0.0.1 privately.
    hosts = [server.hostport, other_server.hostport]
    broker = harness.broker(hosts)
    session = harness.session(broker, hosts)
    error = refused(session, server.url("/redirect?to=" + other_server.url("/echo")),
                    "http.private_address")
    assert "redirect" in error.message
    assert other_server.connections == 0


@pytest.mark.parametrize("target", ["http://169.254.169.254/latest/meta-data/",
                                    "http://[fd00:ec2::254]/latest/meta-data/",
                                    "http://100.100.100.200/latest/meta-data/",
                                    "http://[fe80::a9fe:a9fe]/", "http://metadata.test/",
                                    "http://[::ffff:169.254.169.254]/"])
def test_a_redirect_to_metadata_or_link_local_is_refused(harness, server, target):
    # Even when the tool declares the target and the policy lists it: the address decides.
    host = target.split("/")[2]
    broker = harness.broker([server.hostport, host],
                            resolver=lambda h, p: ["169.254.169.254"])
    session = harness.session(broker, [server.hostport, host])
    refused(session, server.url("/redirect?to=" + target), "http.private_address")


@pytest.mark.parametrize(("target", "code"), [
    ("http://undeclared.test/", "http.undeclared_host"),
    ("file:///etc/passwd", "http.scheme"),
    ("gopher://127.0.0.1:70/", "http.scheme"),
    ("http://user:pw@127.0.0.1:{port}/echo", "http.userinfo"),
    ("http://2130706433:{port}/echo", "http.bad_host"),
    ("https://127.0.0.1:{port}/echo", None),  # https on the same port: not the same grant
])
def test_every_hop_is_checked_like_the_first(harness, server, target, code):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    location = target.format(port=server.port)
    with pytest.raises((CapabilityViolation, HttpFailure)) as info:
        get(session, server.url("/redirect?to=" + location.replace("&", "%26")))
    if code is not None:
        assert isinstance(info.value, CapabilityViolation)
        assert info.value.details["code"] == code
    assert len(server.requests) == 1  # only the first request


def test_a_redirect_to_a_host_in_the_declaration_but_not_the_policy(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport, "elsewhere.test"])
    refused(session, server.url("/redirect?to=http://elsewhere.test/"),
            "http.host_not_in_policy")


# ------------------------------------------------------------- bodies and deadlines

def test_an_endless_body_is_cut_at_the_cap(harness, server):
    broker = harness.broker([server.hostport], max_response_bytes=200_000)
    session = harness.session(broker, [server.hostport])
    started = time.monotonic()
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/endless"))
    assert info.value.kind == "too_large"
    assert time.monotonic() - started < HANG_GUARD_S  # the body never ends
    assert server.client_gone.wait(5)  # the broker closed the connection


def test_a_dripping_server_is_cut_at_the_deadline(harness, server):
    # One byte every 0.2 s: each read is quick, so only a total deadline ends it.
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport], budget=1.5)
    started = time.monotonic()
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/drip?every=0.2"))
    elapsed = time.monotonic() - started
    assert info.value.kind == "timeout"
    assert 1.3 <= elapsed < HANG_GUARD_S  # per-read timeouts alone: 200 s


def test_a_server_dripping_one_byte_a_second_is_cut_at_the_policy_timeout(harness, server):
    broker = harness.broker([server.hostport], timeout_s=2)
    session = harness.session(broker, [server.hostport], budget=60)
    started = time.monotonic()
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/drip?every=1"))
    elapsed = time.monotonic() - started
    assert info.value.kind == "timeout"
    assert 1.8 <= elapsed < HANG_GUARD_S  # per-read timeouts alone: 1000 s


def test_a_stalled_tls_handshake_is_cut_at_the_deadline(harness):
    with HangServer() as hang:
        hostport = f"127.0.0.1:{hang.port}"
        broker = harness.broker([hostport])
        session = harness.session(broker, [hostport], budget=0.8)
        started = time.monotonic()
        with pytest.raises(HttpFailure) as info:
            get(session, f"https://{hostport}/")
    assert info.value.kind == "timeout"
    assert time.monotonic() - started < HANG_GUARD_S  # the handshake never completes


def test_too_many_requests_in_one_call(harness, server):
    broker = harness.broker([server.hostport], max_requests_per_call=3)
    session = harness.session(broker, [server.hostport])
    for _ in range(3):
        get(session, server.url("/echo"))
    refused(session, server.url("/echo"), "http.too_many_requests")
    assert len(server.requests) == 3
    fresh = harness.session(broker, [server.hostport])  # the budget is per call
    assert get(fresh, server.url("/echo"))["status"] == 200


def test_keep_alive_is_per_name_not_per_address(harness, server):
    # Two names pinned to the same address: a connection opened (and checked) for one name
    # is never reused for the other.
    hosts = [f"one.test:{server.port}", f"two.test:{server.port}"]
    broker = harness.broker(hosts, resolver=lambda h, p: ["127.0.0.1"])
    session = harness.session(broker, hosts)
    get(session, f"http://{hosts[0]}/echo")
    get(session, f"http://{hosts[1]}/echo")
    get(session, f"http://{hosts[0]}/echo")
    assert server.connections == 2
