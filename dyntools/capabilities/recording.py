"""Recording a capability tool's real exchanges, so that an example can replay them.

    recording = Recording()
    host = capability_host.live(..., record=recording)   # HostCalls: every session recorded
    pool.call(params, host=host)
    recording.exchanges()    # [{"request": {...}, "response": {...}} | {"request", "failure"}]

A `RecordingSession` wraps the broker's session of one call: each request the tool makes goes
through the broker exactly as it would (the declaration, the operator's policy, secrets,
redaction), and what came back is kept in the shape an example's `"http"` list takes and
`ReplaySession` answers from: the request as the tool made it (its URL with `params` added,
a POST's json body), and the response as the tool saw it (status, headers, text), or the
ordinary failure it got ("timeout", "dns", "connection", "too_large"; a 4xx/5xx is a
response). Everything recorded went through the broker's redaction first: a secret a server
echoed is recorded as `[redacted:NAME]`, which is also what the tool saw.

A failure a recording cannot hold (TLS, too many redirects, a protocol error, a missing
secret: replay has no such answer) makes the recording `incomplete`, with the reason; so does
a request refused as a violation (the call ends anyway).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from dyntools.capabilities.checks import shape_request
from dyntools.capabilities.failures import CONNECTION, DNS, TIMEOUT, TOO_LARGE, HttpFailure
from dyntools.capabilities.policy import CapabilityPolicy

# Ordinary failures a recorded exchange can hold (gate/capabilities.py FAILURES).
RECORDABLE_FAILURES = frozenset({TIMEOUT, DNS, CONNECTION, TOO_LARGE})


class Recording:
    """The exchanges of one real call, in the order the tool made them. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._exchanges: list[dict[str, Any]] = []
        self.incomplete: str | None = None  # why replay could not reproduce the call

    def add(self, exchange: dict[str, Any]) -> None:
        with self._lock:
            self._exchanges.append(exchange)

    def refuse(self, reason: str) -> None:
        with self._lock:
            if self.incomplete is None:
                self.incomplete = reason

    def exchanges(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(exchange) for exchange in self._exchanges]


class RecordingSession:
    """A broker session (`inner`) whose exchanges are kept in `recording`."""

    def __init__(self, inner: Any, recording: Recording, policy: CapabilityPolicy) -> None:
        self._inner = inner
        self._recording = recording
        self._policy = policy

    def redact(self, text: str) -> str:
        return str(self._inner.redact(text))

    def request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = self._inner.request(request)
        except HttpFailure as failure:
            self._recording.add(self._failed(request, failure))
            raise
        except Exception as exc:  # a violation: the call ends, there is nothing to replay
            self._recording.refuse(f"a request was refused: {getattr(exc, 'message', exc)}")
            raise
        self._recording.add({"request": self._request(request), "response": {
            "status": answer["status"], "headers": dict(answer["headers"]),
            "text": answer["text"]}})
        return answer

    def _failed(self, request: Mapping[str, Any], failure: HttpFailure) -> dict[str, Any]:
        recorded = self._request(request)
        if failure.status is not None:  # a 4xx/5xx: the response, as the broker gave it
            return {"request": recorded, "response": {"status": failure.status,
                                                      "text": failure.text}}
        if failure.kind not in RECORDABLE_FAILURES:
            self._recording.refuse(f"a request failed in a way replay cannot reproduce "
                                   f"({failure.kind}: {failure.message})")
        return {"request": recorded, "failure": failure.kind}

    def _request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The request as replay matches it: method, the URL with its params, the body."""
        shaped = shape_request(request, self._policy)  # the broker has accepted it already
        # The tool never holds a secret; redacted all the same, as everything kept is.
        recorded: dict[str, Any] = {"method": shaped.method,
                                    "url": self.redact(str(shaped.url))}
        if shaped.has_json:
            recorded["json"] = shaped.json
        return recorded
