"""The `host` module a capability tool imports, worker side.

    import host
    page = host.http_get("https://en.wikipedia.org/wiki/Python", params={"action": "raw"})
    page["status"], page["headers"]["content-type"], page["text"]
    host.http_post_json("https://api.example.com/items", {"name": "x"})
    host.call_tool("slugify_text", {"text": "Hello World"})

The worker has no network and no other tool: each function here is a stub that writes one
request frame on the protocol pipe (`{"id": CALL, "request": {...}}`, inside the open call)
and blocks until the host answers with one frame. The host performs the request only when
the tool's CAPABILITIES and the operator's policy both allow it; for anything they do not
allow it kills this worker, so a policy violation never returns here. An ordinary failure
(a timeout, a DNS failure, a 4xx or 5xx answer, a composed tool that failed) comes back as
`HttpError` or `ToolError`, which the tool may catch.

A request frame also carries what the tool printed since the previous frame (`"out"`), so
the host knows which output came before which request (a code-mode script that waits for a
decision is replayed later, and the output of the replayed part is not shown twice). The
whole call's output stays under one cap: taking it for a frame does not reset the count.

Arguments are checked here, before anything is sent, so a tool's mistake is a TypeError at
its own line; the host checks every frame again, since it trusts nothing a worker sends.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_URL_CHARS = 8192
MAX_PAIRS = 64
MAX_PAIR_CHARS = 8192


class HttpError(Exception):
    """A host request that failed in an ordinary way. `kind` says how ("status" for a 4xx
    or 5xx answer, "timeout", "dns", "connection", "too_large", "tls", ...); `status` is the
    HTTP status of a 4xx or 5xx answer (else None); `text` its body, capped."""

    def __init__(self, message: str, status: int | None = None, text: str = "",
                 kind: str = "connection") -> None:
        super().__init__(message)
        self.status = status
        self.text = text
        self.kind = kind


class ToolError(Exception):
    """A composed tool (`call_tool`) failed: `reason` is its error's reason (runtime_error,
    invalid_params, timeout, ...)."""

    def __init__(self, message: str, reason: str = "tool_error") -> None:
        super().__init__(message)
        self.reason = reason


MEMBERS = ("http_get", "http_post_json", "call_tool", "HttpError", "ToolError")


def build(channel: Any, encode_json: Callable[[Any], str], max_answer_bytes: int,
          take_output: Callable[[], str] | None = None) -> Any:
    """The `host` module object for one worker, bound to its protocol channel.
    `take_output`: what the tool printed since it was last taken (sent with each request)."""
    import sys

    module = type(sys)("host")

    def ask(request: dict[str, Any]) -> dict[str, Any]:
        if channel.opening == "{":
            raise RuntimeError("host functions can be used only while run() handles a call")
        printed = take_output() if take_output is not None else ""
        channel.send_text(channel.opening + '"request":' + encode_json(request)
                          + (',"out":' + encode_json(printed) if printed else "") + "}")
        answer = channel.receive(max_answer_bytes)
        if type(answer) is not dict:
            raise RuntimeError("the host sent an answer the worker cannot read")
        if "ok" in answer:
            return answer["ok"]  # type: ignore[no-any-return]
        error = answer.get("error")
        if type(error) is not dict:
            raise RuntimeError("the host sent an answer the worker cannot read")
        message = str(error.get("message", "the host request failed"))
        if error.get("kind") == "tool":
            raise ToolError(message, str(error.get("reason", "tool_error")))
        status = error.get("status")
        raise HttpError(message, status if type(status) is int else None,
                        str(error.get("text", "")), str(error.get("failure", "connection")))

    def http_get(url: str, *, params: dict[str, str] | None = None,
                 headers: dict[str, str] | None = None) -> dict[str, Any]:
        """GET `url` (http or https) through the host; `params` are added to its query.
        Returns {"status": int, "headers": {name: value}, "text": str}."""
        return ask({"op": "http", "method": "GET", "url": _url(url),
                    "params": _pairs(params, "params"), "headers": _pairs(headers, "headers")})

    def http_post_json(url: str, body: Any, *,
                       headers: dict[str, str] | None = None) -> dict[str, Any]:
        """POST `body` as JSON to `url` through the host; returns what http_get returns."""
        return ask({"op": "http", "method": "POST", "url": _url(url), "json": body,
                    "headers": _pairs(headers, "headers")})

    def call_tool(name: str, params: dict[str, Any]) -> dict[str, Any]:
        """Call another tool of the catalog (one the tool declares) with `params`."""
        if type(name) is not str:
            raise TypeError(f"call_tool: the name must be a str, got {type(name).__name__}")
        if type(params) is not dict:
            raise TypeError(f"call_tool: params must be a dict, got {type(params).__name__}")
        return ask({"op": "call_tool", "name": name, "params": params})

    for value in (http_get, http_post_json, call_tool):
        value.__module__ = "host"
        value.__qualname__ = value.__name__
        setattr(module, value.__name__, value)
    setattr(module, "HttpError", HttpError)  # noqa: B010 (a module made at run time)
    setattr(module, "ToolError", ToolError)  # noqa: B010
    return module


def _url(url: Any) -> str:
    if type(url) is not str:
        raise TypeError(f"the url must be a str, got {type(url).__name__}")
    if len(url) > MAX_URL_CHARS:
        raise ValueError(f"the url is {len(url)} characters; the limit is {MAX_URL_CHARS}")
    return url


def _pairs(value: Any, what: str) -> dict[str, str] | None:
    if value is None:
        return None
    if type(value) is not dict:
        raise TypeError(f"{what} must be a dict of str to str, got {type(value).__name__}")
    if len(value) > MAX_PAIRS:
        raise ValueError(f"{what} has {len(value)} entries; the limit is {MAX_PAIRS}")
    for key, item in value.items():
        if type(key) is not str or type(item) is not str:
            raise TypeError(f"{what} must map str to str")
        if len(key) + len(item) > MAX_PAIR_CHARS:
            raise ValueError(f"{what} entry {key[:40]!r} is over {MAX_PAIR_CHARS} characters")
    return dict(value)
