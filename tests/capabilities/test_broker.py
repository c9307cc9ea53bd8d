"""The broker against real servers on 127.0.0.1: what a granted request does and how the
ordinary failures come back. The attacks are in test_ssrf.py."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.parse

import pytest

from dyntools.capabilities import EMPTY_POLICY, HttpBroker, HttpFailure
from dyntools.errors import CapabilityViolation, SandboxViolation
from dyntools.gate.capabilities import parse_capabilities
from tests.support.waiting import HANG_GUARD_S

from .conftest import get
from .servers import HangServer


def test_get_merges_params_and_returns_status_headers_text(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    answer = get(session, server.url("/echo?a=1"), params={"q": "x y", "lang": "nb"},
                 headers={"X-Tool": "yes"})
    assert answer["status"] == 200
    assert set(answer) == {"status", "headers", "text"}
    assert answer["headers"]["content-type"] == "application/json"
    assert all(name == name.lower() for name in answer["headers"])
    seen = json.loads(answer["text"])
    assert seen["path"] == "/echo?a=1&q=x+y&lang=nb"
    assert seen["headers"]["x-tool"] == "yes"
    assert seen["headers"]["accept-encoding"] == "identity"
    assert seen["headers"]["host"] == server.hostport
    assert session.budget.made == 1 and session.budget.non_get is False


def test_audit_event_has_the_fields_and_never_the_query(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    get(session, server.url("/echo?private=abc123"))
    (event,) = harness.events
    assert {k: event[k] for k in ("event", "tool", "version", "method", "host", "status",
                                  "outcome")} == {
        "event": "broker.request", "tool": "probe", "version": 1, "method": "GET",
        "host": "127.0.0.1", "status": 200, "outcome": "ok"}
    assert event["bytes"] > 0 and event["ms"] >= 0
    assert "abc123" not in json.dumps(event) and "/echo" not in json.dumps(event)


def test_post_json_sends_the_body_and_marks_non_get(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    answer = session.request({"method": "POST", "url": server.url("/echo"),
                              "json": {"name": "ø", "n": [1, 2]}})
    seen = json.loads(answer["text"])
    assert seen["method"] == "POST"
    assert json.loads(seen["body"]) == {"name": "ø", "n": [1, 2]}
    assert seen["headers"]["content-type"] == "application/json"
    assert session.budget.non_get is True


def test_http_error_status_is_an_ordinary_failure_with_the_text(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/status/404"))
    assert info.value.status == 404 and info.value.kind == "status"
    assert info.value.text == "status 404 body"
    assert not isinstance(info.value, SandboxViolation)
    assert harness.events[-1]["outcome"] == "http_error"


def test_connection_refused_is_an_ordinary_failure(harness):
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    broker = harness.broker([f"127.0.0.1:{port}"])
    session = harness.session(broker, [f"127.0.0.1:{port}"])
    with pytest.raises(HttpFailure) as info:
        get(session, f"http://127.0.0.1:{port}/")
    assert info.value.kind == "connection"


@pytest.mark.parametrize("answer", [socket.gaierror(-2, "Name or service not known"), []])
def test_dns_failure_is_an_ordinary_failure(harness, answer):
    def resolver(host, port):
        if isinstance(answer, Exception):
            raise answer
        return answer

    broker = harness.broker(["nowhere.test"], resolver=resolver)
    session = harness.session(broker, ["nowhere.test"])
    with pytest.raises(HttpFailure) as info:
        get(session, "http://nowhere.test/")
    assert info.value.kind == "dns"


def test_a_response_over_the_cap_is_refused_before_reading(harness, server):
    broker = harness.broker([server.hostport], max_response_bytes=1000)
    session = harness.session(broker, [server.hostport])
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/big?n=5000"))
    assert info.value.kind == "too_large"
    assert get(session, server.url("/big?n=1000"))["text"] == "x" * 1000


def test_a_gzip_bomb_stops_at_the_cap(harness, server):
    broker = harness.broker([server.hostport], max_response_bytes=100_000)
    session = harness.session(broker, [server.hostport])
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/gzip-bomb"))
    assert info.value.kind == "too_large"


def test_text_is_decoded_with_the_response_charset(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    assert get(session, server.url("/latin1"))["text"] == "café"


@pytest.mark.parametrize(("name", "body", "text"), [
    ("punycode", "ab-cd", "ab-cd"),  # quadratic to decode: never used as a charset
    ("unicode-escape", "\\u0041", "\\u0041"), ("idna", "ab", "ab"), ("base64", "YWI=", "YWI="),
    ("bogus", "ab", "ab"), ("utf-16-le", "a\x00b\x00", "ab"), ("cp1252", "\x80", "€"),
])
def test_only_real_character_encodings_decode_the_text(harness, server, name, body, text):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    query = urllib.parse.urlencode({"name": name, "body": body}, encoding="latin-1")
    answer = get(session, server.url("/charset?" + query))
    assert answer["text"] == text


def test_a_switching_protocols_answer_is_a_protocol_failure(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/switch"))
    assert info.value.kind == "protocol"
    assert get(session, server.url("/echo"))["status"] == 200


def test_redirects_are_followed_and_303_turns_post_into_get(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    answer = get(session, server.url("/redirect?to=/echo%3Fhop%3D1"))
    assert json.loads(answer["text"])["path"] == "/echo?hop=1"
    for code, method in ((303, "GET"), (302, "GET"), (301, "GET"), (307, "POST"), (308, "POST")):
        answer = session.request({"method": "POST", "json": {"k": code},
                                  "url": server.url(f"/redirect?code={code}&to=/echo")})
        seen = json.loads(answer["text"])
        assert seen["method"] == method, code
        assert (seen["body"] == json.dumps({"k": code}, separators=(",", ":"))) == \
            (method == "POST")
    outcomes = [event["outcome"] for event in harness.events]
    assert outcomes.count("redirect") == 6


def test_more_than_five_redirects_is_an_ordinary_failure(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/loop"))
    assert info.value.kind == "redirects"
    assert len(server.requests) == 6  # the request and five redirects, no more
    assert session.budget.made == 1


def test_keep_alive_reuses_one_connection(harness, server):
    broker = harness.broker([server.hostport])
    for _ in range(5):
        session = harness.session(broker, [server.hostport])
        get(session, server.url("/echo"))
    assert server.connections == 1
    assert len(server.requests) == 5


def test_cookies_set_by_a_server_are_never_sent_back(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    get(session, server.url("/echo-secret"))
    seen = json.loads(get(session, server.url("/echo"))["text"])
    assert "cookie" not in seen["headers"]


def test_no_policy_refuses_every_request(server):
    broker = HttpBroker(EMPTY_POLICY)
    try:
        session = broker.session(tool="t", version=1,
                                 declared=parse_capabilities({"http": [server.hostport]}),
                                 deadline=time.monotonic() + 5)
        with pytest.raises(CapabilityViolation) as info:
            get(session, server.url("/echo"))
        assert info.value.details["code"] == "http.no_policy"
        assert info.value.reason == "sandbox_violation"
    finally:
        broker.close()
    assert server.requests == []


def test_the_callers_deadline_bounds_the_request(harness):
    with HangServer() as hang:
        hostport = f"127.0.0.1:{hang.port}"
        broker = harness.broker([hostport])
        session = harness.session(broker, [hostport], budget=0.6)
        started = time.monotonic()
        with pytest.raises(HttpFailure) as info:
            get(session, f"http://{hostport}/")
        elapsed = time.monotonic() - started
    assert info.value.kind == "timeout"
    assert 0.5 <= elapsed < HANG_GUARD_S  # it waited its deadline; the server never answers


def test_the_policy_timeout_bounds_the_request(harness):
    with HangServer() as hang:
        hostport = f"127.0.0.1:{hang.port}"
        broker = harness.broker([hostport], timeout_s=0.6)
        session = harness.session(broker, [hostport], budget=30)
        started = time.monotonic()
        with pytest.raises(HttpFailure) as info:
            get(session, f"http://{hostport}/")
        elapsed = time.monotonic() - started
    assert info.value.kind == "timeout"
    assert 0.5 <= elapsed < HANG_GUARD_S  # it waited its timeout; the server never answers


def test_a_passed_deadline_sends_nothing(harness, server):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport], budget=-1)
    with pytest.raises(HttpFailure) as info:
        get(session, server.url("/echo"))
    assert info.value.kind == "timeout"
    assert server.connections == 0


def test_a_slow_resolver_is_abandoned_at_the_deadline(harness):
    answered = threading.Event()

    def resolver(host, port):
        answered.wait(120)  # far longer than any deadline; released when the test ends
        return ["127.0.0.1"]

    broker = harness.broker(["slow.test"], resolver=resolver)
    session = harness.session(broker, ["slow.test"], budget=0.5)
    started = time.monotonic()
    try:
        with pytest.raises(HttpFailure) as info:
            get(session, "http://slow.test/")
        assert info.value.kind == "timeout"
        assert time.monotonic() - started < HANG_GUARD_S  # the lookup itself takes 120 s
    finally:
        answered.set()


@pytest.mark.parametrize(("frame", "code"), [
    ("not a dict", "http.malformed_request"),
    ({"method": "DELETE", "url": "http://a.test/"}, "http.malformed_request"),
    ({"method": "GET"}, "http.malformed_request"),
    ({"method": "GET", "url": 5}, "http.malformed_request"),
    ({"method": "GET", "url": "http://a.test/", "extra": 1}, "http.malformed_request"),
    ({"method": "GET", "url": "http://a.test/", "json": {}}, "http.malformed_request"),
    ({"method": "POST", "url": "http://a.test/"}, "http.malformed_request"),
    ({"method": "POST", "url": "http://a.test/", "json": float("nan")},
     "http.malformed_request"),
    ({"method": "POST", "url": "http://a.test/", "json": "x" * 300_000},
     "http.request_too_large"),
    ({"method": "GET", "url": "http://a.test/", "params": {"a": 1}}, "http.malformed_request"),
    ({"method": "GET", "url": "http://a.test/", "headers": ["x"]}, "http.malformed_request"),
    ({"method": "GET", "url": "http://a.test/", "headers": {f"h{i}": "v" for i in range(40)}},
     "http.request_too_large"),
    ({"method": "GET", "url": "http://a.test/" + "a" * 9000}, "http.request_too_large"),
    ({"method": "GET", "url": "http://a.test/", "headers": {"X": "é"}}, "http.bad_header"),
    ({"method": "GET", "url": "http://a.test/", "headers": {"X Y": "1"}}, "http.bad_header"),
    ({"method": "GET", "url": "http://a.test/", "headers": {"x": "1", "X": "2"}},
     "http.bad_header"),
    ({"method": "GET", "url": "ftp://a.test/"}, "http.scheme"),
    ({"method": "GET", "url": "file:///etc/passwd"}, "http.scheme"),
    ({"method": "GET", "url": "//a.test/"}, "http.scheme"),
    ({"method": "GET", "url": "http:///path"}, "http.bad_host"),
    ({"method": "GET", "url": "http://a.test:0/"}, "http.bad_url"),
    ({"method": "GET", "url": "http://a.test:99999/"}, "http.bad_url"),
    ({"method": "GET", "url": "http://[::1/"}, "http.bad_url"),
    ({"method": "GET", "url": "http://a.test./"}, "http.bad_host"),
    ({"method": "GET", "url": "http://a_b.test/"}, "http.bad_host"),
    ({"method": "GET", "url": "http://a%2etest/"}, "http.bad_host"),
])
def test_malformed_requests_are_violations(harness, frame, code):
    calls = []
    broker = harness.broker(["a.test"], resolver=lambda h, p: calls.append(h) or ["127.0.0.1"])
    session = harness.session(broker, ["a.test"])
    with pytest.raises(CapabilityViolation) as info:
        session.request(frame)
    assert info.value.details["code"] == code, info.value.message
    assert calls == []
    assert harness.events[-1]["outcome"] == "violation"


@pytest.mark.parametrize("name", ["Host", "content-length", "Transfer-Encoding", "Connection",
                                  "Upgrade", "TE", "Proxy-Authorization", "Accept-Encoding",
                                  "Content_Length", "transfer_encoding"])
def test_headers_the_host_owns_may_not_be_set(harness, server, name):
    broker = harness.broker([server.hostport])
    session = harness.session(broker, [server.hostport])
    with pytest.raises(CapabilityViolation) as info:
        get(session, server.url("/echo"), headers={name: "x"})
    assert info.value.details["code"] == "http.host_header"
    assert server.requests == []


def test_a_closed_broker_opens_no_session(harness, server):
    broker = harness.broker([server.hostport])
    broker.close()
    with pytest.raises(RuntimeError):
        harness.session(broker, [server.hostport])
