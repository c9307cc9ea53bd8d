"""The broker's three outcomes other than a response, as exceptions.

    CapabilityViolation (dyntools.errors)  the request is not granted: the host ends the call
                                           (the worker is killed; reason "sandbox_violation")
    HttpFailure                            an ordinary failure the tool may catch (the worker
                                           raises it as `host.HttpError`): timeout, DNS,
                                           refused connection, TLS, too large, 4xx/5xx, ...
    ReplayMismatch                         verification only: the tool made a request the
                                           example did not record (the example fails)

`violation(code, message, **details)` builds a CapabilityViolation whose `details["code"]` is
a stable code (`http.undeclared_host`, `http.private_address`, ...) listed in
docs/capabilities.md.
"""

from __future__ import annotations

from typing import Any

from dyntools.errors import CapabilityViolation

MAX_FAILURE_TEXT = 4096

# HttpFailure.kind values (stable; the worker's host.HttpError carries them).
TIMEOUT, DNS, CONNECTION, TLS, TOO_LARGE = "timeout", "dns", "connection", "tls", "too_large"
STATUS, REDIRECTS, PROTOCOL, SECRET = "status", "redirects", "protocol", "secret"
FAILURE_KINDS = (TIMEOUT, DNS, CONNECTION, TLS, TOO_LARGE, STATUS, REDIRECTS, PROTOCOL, SECRET)


class HttpFailure(Exception):
    """An ordinary failure of a granted request. `status` is the HTTP status for a 4xx/5xx
    (None otherwise), `text` the response body (redacted, capped), `kind` one of
    FAILURE_KINDS. Nothing in it holds a secret: the broker redacts before raising."""

    def __init__(self, message: str, status: int | None = None, text: str = "", *,
                 kind: str = CONNECTION) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.text = text[:MAX_FAILURE_TEXT]
        self.kind = kind

    def as_dict(self) -> dict[str, Any]:
        return {"message": self.message, "status": self.status, "text": self.text,
                "kind": self.kind}


class ReplayMismatch(Exception):
    """At verification, the tool's request is not the next recorded exchange (or there is
    none left). `expected` and `actual` are short one-line descriptions."""

    def __init__(self, message: str, *, expected: str | None, actual: str) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.actual = actual


def violation(code: str, message: str, **details: Any) -> CapabilityViolation:
    return CapabilityViolation(message, capability="http", code=code, **details)
