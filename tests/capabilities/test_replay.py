"""The verification replay: recorded exchanges answer the tool's requests, in order."""

from __future__ import annotations

import pytest

from dyntools.capabilities import (
    EMPTY_POLICY,
    HttpFailure,
    ReplayMismatch,
    ReplaySession,
    policy_from_mapping,
)
from dyntools.errors import CapabilityViolation
from dyntools.gate.capabilities import parse_capabilities, parse_exchanges

CAPS = parse_capabilities({"http": ["api.example.com", "127.0.0.1:8765"]})
RECORDED = [
    {"request": {"method": "GET", "url": "https://api.example.com/search?q=oslo+city&n=2"},
     "response": {"status": 200, "headers": {"Content-Type": "application/json"},
                  "text": '{"hits": 2}'}},
    {"request": {"method": "POST", "url": "https://api.example.com:443/items",
                 "json": {"name": "x", "tags": [1, True]}},
     "response": {"status": 201, "text": "created"}},
    {"request": {"method": "GET", "url": "http://127.0.0.1:8765/missing"},
     "response": {"status": 404, "text": "no such item"}},
    {"request": {"method": "GET", "url": "https://api.example.com/slow"},
     "failure": "timeout"},
]


def session(recorded=RECORDED, policy=EMPTY_POLICY, caps=CAPS):
    return ReplaySession(parse_exchanges(recorded), declared=caps, policy=policy,
                         tool="probe", version=1)


def test_a_recorded_run_replays_in_order():
    replay = session()
    first = replay.request({"method": "GET", "url": "https://api.example.com/search",
                            "params": {"q": "oslo city", "n": "2"}})
    assert first == {"status": 200, "headers": {"content-type": "application/json"},
                     "text": '{"hits": 2}'}
    second = replay.request({"method": "POST", "url": "https://api.example.com/items",
                             "json": {"tags": [1, True], "name": "x"}})
    assert second["status"] == 201 and replay.budget.non_get
    with pytest.raises(HttpFailure) as info:
        replay.request({"method": "GET", "url": "http://127.0.0.1:8765/missing"})
    assert (info.value.status, info.value.text, info.value.kind) == (404, "no such item",
                                                                     "status")
    with pytest.raises(HttpFailure) as info:
        replay.request({"method": "GET", "url": "https://api.example.com/slow"})
    assert info.value.kind == "timeout" and info.value.status is None
    assert replay.unused() == [] and replay.budget.made == 4


@pytest.mark.parametrize("failure", ["timeout", "dns", "connection", "too_large"])
def test_recorded_failures(failure):
    replay = session([{"request": {"method": "GET", "url": "https://api.example.com/"},
                       "failure": failure}])
    with pytest.raises(HttpFailure) as info:
        replay.request({"method": "GET", "url": "https://api.example.com/"})
    assert info.value.kind == failure


def test_a_recorded_redirect_is_returned_as_is():
    replay = session([{"request": {"method": "GET", "url": "https://api.example.com/old"},
                       "response": {"status": 301, "headers": {"Location": "/new"}}}])
    answer = replay.request({"method": "GET", "url": "https://api.example.com/old"})
    assert answer == {"status": 301, "headers": {"location": "/new"}, "text": ""}


@pytest.mark.parametrize(("frame", "problem"), [
    ({"method": "POST", "url": "https://api.example.com/search?q=oslo+city&n=2", "json": {}},
     "method POST"),
    ({"method": "GET", "url": "https://api.example.com/search?n=2&q=oslo+city"}, "another URL"),
    ({"method": "GET", "url": "https://api.example.com/search?q=oslo+city"}, "another URL"),
    ({"method": "GET", "url": "http://api.example.com/search?q=oslo+city&n=2"}, "another URL"),
    ({"method": "GET", "url": "https://api.example.com/Search?q=oslo+city&n=2"},
     "another URL"),
    ({"method": "GET", "url": "https://api.example.com/items"}, "another URL"),
    ({"method": "GET", "url": "https://api.example.com/se%61rch?q=oslo+city&n=2"},
     "another URL"),
])
def test_a_request_that_was_not_recorded_fails_the_example(frame, problem):
    replay = session()
    with pytest.raises(ReplayMismatch) as info:
        replay.request(frame)
    assert problem in info.value.message
    assert info.value.expected == "GET https://api.example.com/search?q=oslo+city&n=2"
    assert info.value.actual.startswith(frame["method"])
    assert "expected GET https://api.example.com/search" in info.value.message
    assert len(replay.unused()) == 4


def test_equivalent_spellings_of_the_recorded_url_match():
    for url in ("https://API.example.com:443/search?q=oslo%20city&n=2",
                "https://api.example.com/search?q=oslo+city&n=2#fragment"):
        replay = session()
        assert replay.request({"method": "GET", "url": url})["status"] == 200


def test_out_of_order_and_beyond_the_recording():
    replay = session()
    with pytest.raises(ReplayMismatch):
        replay.request({"method": "POST", "url": "https://api.example.com/items",
                        "json": {"name": "x", "tags": [1, True]}})
    short = session(RECORDED[:1])
    short.request({"method": "GET", "url": "https://api.example.com/search?q=oslo+city&n=2"})
    with pytest.raises(ReplayMismatch) as info:
        short.request({"method": "GET", "url": "https://api.example.com/search?q=oslo+city&n=2"})
    assert info.value.expected is None and "records 1 exchange" in info.value.message


def test_the_json_body_must_match_when_recorded():
    for body in ({"name": "x", "tags": [1, 1]}, {"name": "x"}, {"name": "x", "tags": [1.0, True]}):
        replay = session(RECORDED[1:2])
        with pytest.raises(ReplayMismatch) as info:
            replay.request({"method": "POST", "url": "https://api.example.com/items",
                            "json": body})
        assert "json body" in info.value.message
    unrecorded_body = session([{"request": {"method": "POST",
                                            "url": "https://api.example.com/items"},
                                "response": {"status": 200}}])
    assert unrecorded_body.request({"method": "POST", "url": "https://api.example.com/items",
                                    "json": {"any": "thing"}})["status"] == 200


def test_unused_lists_what_was_never_requested():
    replay = session()
    replay.request({"method": "GET", "url": "https://api.example.com/search?q=oslo+city&n=2"})
    assert [exchange.url for exchange in replay.unused()] == [
        "https://api.example.com:443/items", "http://127.0.0.1:8765/missing",
        "https://api.example.com/slow"]


def test_the_declaration_is_enforced_before_the_recording():
    recorded = [{"request": {"method": "GET", "url": "https://evil.test/"},
                 "response": {"status": 200}}]
    replay = session(recorded)
    with pytest.raises(CapabilityViolation) as info:
        replay.request({"method": "GET", "url": "https://evil.test/"})
    assert info.value.details["code"] == "http.undeclared_host"
    for frame, code in (({"method": "GET", "url": "https://api.example.com@evil.test/"},
                         "http.userinfo"),
                        ({"method": "GET", "url": "https://api.example.com/\r\n"},
                         "http.control_character"),
                        ({"method": "GET", "url": "https://api.example.com/",
                          "headers": {"Host": "x"}}, "http.host_header")):
        with pytest.raises(CapabilityViolation) as info:
            session().request(frame)
        assert info.value.details["code"] == code


def test_the_policy_is_enforced_when_given():
    policy = policy_from_mapping({"http": {"allow": ["api.example.com", "127.0.0.1:8765"],
                                           "max_requests_per_call": 1,
                                           "max_response_bytes": 5}})
    replay = session(policy=policy)
    with pytest.raises(HttpFailure) as info:  # the recorded text is over the policy's cap
        replay.request({"method": "GET",
                        "url": "https://api.example.com/search?q=oslo+city&n=2"})
    assert info.value.kind == "too_large"
    with pytest.raises(CapabilityViolation) as info:
        replay.request({"method": "GET", "url": "https://api.example.com/items"})
    assert info.value.details["code"] == "http.too_many_requests"
    loopback = session(RECORDED[2:3], policy=policy_from_mapping(
        {"http": {"allow": ["127.0.0.1:8765"]}}))
    with pytest.raises(CapabilityViolation) as info:
        loopback.request({"method": "GET", "url": "http://127.0.0.1:8765/missing"})
    assert info.value.details["code"] == "http.private_address"
    not_allowed = session(policy=policy_from_mapping({"http": {"allow": ["127.0.0.1:8765"]}}))
    with pytest.raises(CapabilityViolation) as info:
        not_allowed.request({"method": "GET",
                             "url": "https://api.example.com/search?q=oslo+city&n=2"})
    assert info.value.details["code"] == "http.host_not_in_policy"
