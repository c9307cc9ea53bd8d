"""Verification without the network: a tool's requests answered from an example's recording.

    session = ReplaySession(parse_exchanges(example["http"]), declared=caps, policy=policy,
                            tool="weather", version=3)        # budget=: the call's count
    session.request({...})     # the next recorded exchange must match
    session.unused()           # recorded exchanges the tool never asked for

The same `request` interface as a BrokerSession. Each request must be the next recorded
exchange: the same method, the same URL once both sides are read by httpx.URL (scheme, host,
port with defaults filled in, path, and the decoded query pairs in order), and the same json
body when the recording holds one. A recorded 2xx/3xx response is returned, a recorded 4xx/5xx
or failure ("timeout", "dns", "connection", "too_large") raises HttpFailure as the broker
would, and anything else raises ReplayMismatch (the example fails). The tool's declaration is
enforced as at run time (CapabilityViolation), and so is the operator's policy when one is
configured (its hosts, its limits, addresses written as literals; nothing is resolved): with
EMPTY_POLICY a verification replays what the tool declares, within the default request
budget.

A recording made by `dyntools record` holds what the broker let the tool see: a secret a
server echoed is `[redacted:NAME]` there, and is answered as such, so the tool computes the
same result it did for real. A marker names a secret: one the tool does not declare cannot
have been sent by it, so that exchange is a mismatch (the recording is not the tool's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from dyntools.capabilities import checks
from dyntools.capabilities.addresses import address_problem, parse_address
from dyntools.capabilities.checks import Target, check_target, shape_request
from dyntools.capabilities.failures import (
    CONNECTION,
    DNS,
    STATUS,
    TIMEOUT,
    TOO_LARGE,
    HttpFailure,
    ReplayMismatch,
    violation,
)
from dyntools.capabilities.policy import CapabilityPolicy, RequestBudget
from dyntools.gate.capabilities import DEFAULT_PORTS, Capabilities, Exchange

_FAILURES = {
    "timeout": (TIMEOUT, "did not answer before the request's deadline (recorded)"),
    "dns": (DNS, "could not be resolved (recorded)"),
    "connection": (CONNECTION, "refused the connection (recorded)"),
    "too_large": (TOO_LARGE, "sent a response larger than the limit (recorded)"),
}
MAX_SHOWN = 300

UrlKey = tuple[str, str, int, str, tuple[tuple[str, str], ...]]


class ReplaySession:
    def __init__(self, exchanges: Sequence[Exchange], *, declared: Capabilities,
                 policy: CapabilityPolicy, tool: str, version: int | None,
                 budget: RequestBudget | None = None) -> None:
        self._exchanges = tuple(exchanges)
        self._next = 0
        self.declared = declared
        self.policy = policy
        self.tool = tool
        self.version = version
        self.budget = budget if budget is not None else RequestBudget(policy)

    def redact(self, text: str) -> str:
        """Nothing to redact: no secret is read or sent at verification."""
        return text

    def unused(self) -> list[Exchange]:
        """The recorded exchanges the tool has not requested (so far)."""
        return list(self._exchanges[self._next:])

    def request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        policy = self.policy
        self.budget.admit()
        shaped = shape_request(request, policy)
        target = check_target(shaped.url, self.declared, policy)
        if policy.configured:
            _check_literal(target, policy)
        actual = _describe(shaped.method, str(target.url))
        number = self._next + 1
        if self._next >= len(self._exchanges):
            raise ReplayMismatch(
                f"request {number} ({actual}) was not recorded: the example records "
                f"{len(self._exchanges)} exchange(s)", expected=None, actual=actual)
        recorded = self._exchanges[self._next]
        expected = _describe(recorded.method, recorded.url)
        problem = _difference(recorded, shaped.method, target.url, shaped.json,
                              shaped.has_json)
        if problem is not None:
            raise ReplayMismatch(
                f"request {number} does not match the recording ({problem}): expected "
                f"{expected}, got {actual}", expected=expected, actual=actual)
        undeclared = sorted(set(_REDACTED.findall(_recorded_text(recorded)))
                            - set(self.declared.secrets))
        if undeclared:
            raise ReplayMismatch(
                f"request {number} ({actual}) is recorded with [redacted:{undeclared[0]}], a "
                "secret the tool does not declare in CAPABILITIES: the recording is not of "
                "this tool", expected=expected, actual=actual)
        self._next += 1
        if shaped.method != "GET":
            self.budget.non_get = True
        return _answer(recorded, target, policy)


# What the broker's redaction leaves where a secret was (capabilities/redaction.py).
_REDACTED = re.compile(r"\[redacted:([A-Z][A-Z0-9_]*)\]")


def _recorded_text(recorded: Exchange) -> str:
    """Everything of a recorded response that a secret could have been echoed in."""
    return "\n".join([recorded.text, *(f"{k}: {v}" for k, v in recorded.headers)])


def _check_literal(target: Target, policy: CapabilityPolicy) -> None:
    address = parse_address(target.host)
    if address is None:
        return
    problem = address_problem(address, policy.allow_private)
    if problem is not None:
        raise violation(checks.PRIVATE, f"{target.describe()} is refused: {problem}; the "
                                        "operator's http.allow_private does not include it",
                        host=target.host, address=str(address))


def _difference(recorded: Exchange, method: str, url: httpx.URL, body: Any,
                has_body: bool) -> str | None:
    if recorded.method != method:
        return f"method {method}, recorded {recorded.method}"
    try:
        expected_url = _url_key(httpx.URL(recorded.url))
    except (httpx.InvalidURL, ValueError, TypeError, UnicodeError):
        return "the recorded url is not a valid URL"
    if _url_key(url) != expected_url:
        return "another URL"
    if recorded.has_json:
        if not has_body:
            return "no json body, one recorded"
        if _canonical(body) != _canonical(recorded.json):
            return "another json body"
    return None


def _url_key(url: httpx.URL) -> UrlKey:
    host = url.raw_host.decode("ascii", "replace").lower()
    address = parse_address(host)
    if address is not None:
        host = address.compressed
    port = url.port if url.port is not None else DEFAULT_PORTS.get(url.scheme, 0)
    # The raw path (url.path is percent-decoded: /a%2Fb would equal /a/b); the query as
    # decoded pairs, so q=a+b and q=a%20b are the same request.
    path = url.raw_path.split(b"?", 1)[0].decode("ascii", "replace")
    return (url.scheme, host, port, path, tuple(url.params.multi_items()))


def _canonical(value: Any) -> str:
    # True == 1 in Python but not in JSON: compare the JSON texts.
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=True)


def _describe(method: str, url: str) -> str:
    text = f"{method} {url}"
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."


def _answer(recorded: Exchange, target: Target,
            policy: CapabilityPolicy) -> dict[str, Any]:
    where = target.describe()
    if recorded.failure is not None:
        kind, what = _FAILURES[recorded.failure]
        raise HttpFailure(f"{where} {what}", kind=kind)
    status = recorded.status if recorded.status is not None else 200
    if policy.configured and len(recorded.text.encode("utf-8")) > policy.max_response_bytes:
        raise HttpFailure(f"the response from {where} is larger than "
                          f"{policy.max_response_bytes} bytes", kind=TOO_LARGE)
    if status >= 400:
        raise HttpFailure(f"HTTP {status} from {where}", status, recorded.text, kind=STATUS)
    return {"status": status, "headers": dict(recorded.headers), "text": recorded.text}
