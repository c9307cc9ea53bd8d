"""The page's own defences: where it listens, who may talk to it, and what the browser may do.

    token = new_token()                         # printed once at start; or --token-file
    sock = bind("127.0.0.1", 0, allow_remote=False)
    app = Guard(starlette_app, Session(token), allowed_hosts(sock, "127.0.0.1"))

Every request, whatever its path:
- its Host header must name the address the server is bound to (or `localhost` on a
  loopback address) with the bound port: a DNS-rebinding page, whose Host is its own
  domain, is refused (403, `bad_host`) before anything is read;
- its body is capped at `MAX_BODY_BYTES` (413, `too_large`);
- the response carries a strict Content-Security-Policy (scripts, styles and connections
  from this origin only, no inline script or style, no eval, no framing), nosniff,
  Referrer-Policy same-origin and no caching.

Except the login page and the static files, every request needs the session cookie, which
holds the session token (compared in constant time); a POST also needs the CSRF token
(a form field `csrf` or an `X-CSRF-Token` header, HMAC of the session token) and an Origin
(or, failing that, Referer) of exactly this server. Writes are POST only.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import socket
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from dyntools.base import listening
from dyntools.base.listening import ASGIApp, Message, Receive, Scope, Send, is_loopback
from dyntools.base.log import get_logger

MAX_BODY_BYTES = 1 << 20  # the gate's own limit is 256 KiB; routes enforce theirs below this
MAX_FORM_BYTES = 64 * 1024
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
# Paths served without a session: the login form and what it needs to render.
PUBLIC_PREFIXES = ("/static/",)
PUBLIC_PATHS = frozenset({"/login", "/favicon.ico"})

CSP = "; ".join((
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
))
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode("ascii")),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # no-referrer would make browsers send Origin: null
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)

Refusal = tuple[int, str, str]  # status, stable code, a sentence a person can act on


def check_token(token: str) -> str:
    """A session token as it is typed or stored (no ';' or ',': it travels in a cookie)."""
    return listening.check_token(token, "session token", forbidden=";,")


def bind(host: str, port: int, *, allow_remote: bool) -> socket.socket:
    """The listening socket; a non-loopback host is refused unless `allow_remote`."""
    return listening.bind(host, port, allow_remote=allow_remote,
                          what="The page approves and retires tools", guard="session token")


def _shown(host: str) -> str:
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def allowed_hosts(sock: socket.socket, host: str) -> frozenset[str] | None:
    """The Host header values this server answers: the bound address (and `localhost` on
    loopback) with the bound port. None (any Host) only for a wildcard address, which only
    --allow-remote reaches: there the token is all that guards the page."""
    port = sock.getsockname()[1]
    bound = sock.getsockname()[0]
    names = {_shown(host), _shown(bound)}
    if is_loopback(host):
        names.add("localhost")
    elif ipaddress.ip_address(bound).is_unspecified:
        return None
    return frozenset(f"{name}:{port}".lower() for name in names)


def url_for(sock: socket.socket, host: str) -> str:
    return f"http://{_shown(host)}:{sock.getsockname()[1]}"


@dataclass(frozen=True, slots=True)
class Session:
    """The session token, the cookie that carries it and the CSRF token derived from it."""

    token: str
    cookie_name: str = "dyntools_ui"

    @property
    def csrf(self) -> str:
        return hmac.new(self.token.encode("ascii"), b"dyntools-ui-csrf-v1",
                        hashlib.sha256).hexdigest()

    def token_ok(self, candidate: str | None) -> bool:
        if candidate is None:
            return False
        return hmac.compare_digest(candidate.encode("utf-8", "replace"),
                                   self.token.encode("ascii"))

    def csrf_ok(self, candidate: str | None) -> bool:
        if candidate is None:
            return False
        return hmac.compare_digest(candidate.encode("utf-8", "replace"),
                                   self.csrf.encode("ascii"))

    def cookie_header(self) -> str:
        return (f"{self.cookie_name}={self.token}; HttpOnly; SameSite=Strict; Path=/")

    def clear_cookie_header(self) -> str:
        return f"{self.cookie_name}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"

    def from_cookies(self, header: str | None) -> str | None:
        """This session's cookie value, if the Cookie header holds exactly one."""
        if not header:
            return None
        values = [part.strip()[len(self.cookie_name) + 1:] for part in header.split(";")
                  if part.strip().startswith(self.cookie_name + "=")]
        return values[0] if len(values) == 1 else None


def _headers(scope: Scope) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in scope.get("headers", ()):
        out.setdefault(bytes(key).decode("latin-1").lower(), []).append(
            bytes(value).decode("latin-1"))
    return out


def _one(headers: dict[str, list[str]], name: str) -> str | None:
    values = headers.get(name, [])
    return values[0] if len(values) == 1 else None


def origin_of(url: str) -> str | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}".lower()


class Guard:
    """ASGI middleware: every check in the module docstring, before the app sees a request.

    The CSRF check lives here too, for every POST alike: from the `X-CSRF-Token` header, or
    from the `csrf` field of a urlencoded form (the body is read here, capped at
    `MAX_FORM_BYTES`, and replayed to the app). A POST of any other kind without the header
    is refused, so no route can forget the check."""

    def __init__(self, app: ASGIApp, session: Session, hosts: frozenset[str] | None) -> None:
        self._app = app
        self._session = session
        self._hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets here: nothing unchecked reaches the app
            await send({"type": "websocket.close", "code": 1008})
            return
        headers = _headers(scope)
        refusal = self._refusal(scope, headers)
        if refusal is None and str(scope.get("method", "")).upper() == "POST":
            refusal, receive = await self._csrf(scope, headers, receive)
        if refusal is not None:
            status, code, message = refusal
            if code == "no_session" and str(scope.get("method")).upper() == "GET" and \
                    not str(scope.get("path", "")).startswith("/runs/stream"):
                await _redirect(send, "/login")
                return
            get_logger("ui").warning("ui.refused", code=code, path=str(scope.get("path"))[:200],
                                     method=str(scope.get("method"))[:10])
            await _plain(send, status, code, message)
            return
        await self._app(scope, _capped(receive, MAX_BODY_BYTES), _secured(send))

    def _refusal(self, scope: Scope, headers: dict[str, list[str]]) -> Refusal | None:
        host = _one(headers, "host")
        if host is None or (self._hosts is not None and host.lower() not in self._hosts):
            return (403, "bad_host", "this server answers only requests addressed to the "
                    "address it listens on (the Host header names another)")
        length = _one(headers, "content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return (413, "too_large", f"request bodies are limited to {MAX_BODY_BYTES} bytes")
        path = str(scope.get("path", ""))
        method = str(scope.get("method", "GET")).upper()
        if method not in ("GET", "HEAD", "POST"):
            return (405, "method_not_allowed", "only GET and POST are served")
        if method == "POST":
            origin = _one(headers, "origin")
            if origin is None or origin == "null":
                referer = _one(headers, "referer")
                origin = origin_of(referer) if referer else None
            if origin is None or origin != f"http://{host}".lower():
                return (403, "bad_origin", "a write must come from this page itself (the "
                        "request's Origin does not name this server)")
        public = path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)
        if not public and not self._session.token_ok(
                self._session.from_cookies(_one(headers, "cookie"))):
            return (401, "no_session", "this page needs the session token printed when the "
                    "server started: log in at /login")
        return None

    async def _csrf(self, scope: Scope, headers: dict[str, list[str]],
                    receive: Receive) -> tuple[Refusal | None, Receive]:
        if str(scope.get("path", "")) in PUBLIC_PATHS:
            return None, receive  # the login form: no session yet, the token itself is asked
        if self._session.csrf_ok(_one(headers, CSRF_HEADER)):
            return None, receive
        kind = (_one(headers, "content-type") or "").split(";")[0].strip().lower()
        if kind != "application/x-www-form-urlencoded":
            return (403, "bad_csrf", "this write needs the page's CSRF token"), receive
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message.get("type") != "http.request":
                return (400, "disconnected", "the request ended early"), receive
            body += message.get("body", b"")
            more = bool(message.get("more_body"))
            if len(body) > MAX_FORM_BYTES:
                return (413, "too_large", f"forms are limited to {MAX_FORM_BYTES} bytes"), receive
        fields = parse_qs(body.decode("latin-1"), keep_blank_values=True)
        values = fields.get(CSRF_FIELD, [])
        if len(values) != 1 or not self._session.csrf_ok(values[0]):
            return (403, "bad_csrf", "this write needs the page's CSRF token (reload the page "
                    "and try again)"), receive
        return None, _replay(bytes(body), receive)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def wrapped() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return wrapped


def _capped(receive: Receive, limit: int) -> Receive:
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message.get("type") == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(limit)
        return message

    return wrapped


class BodyTooLarge(Exception):
    """A body that grew past the cap while streaming (no or a false Content-Length)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request bodies are limited to {limit} bytes")
        self.limit = limit


def _secured(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message.get("type") == "http.response.start":
            present = {bytes(k).lower() for k, _ in message.get("headers", ())}
            extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return wrapped


async def _redirect(send: Send, location: str) -> None:
    await send({"type": "http.response.start", "status": 303, "headers": [
        (b"location", location.encode("ascii")), (b"content-length", b"0"),
        *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": b""})


async def _plain(send: Send, status: int, code: str, message: str) -> None:
    """A refusal before the app: small, self-contained HTML (plus the code as JSON for
    scripts in a header), with the same security headers."""
    from markupsafe import escape

    body = (f"<!doctype html><html lang=en><meta charset=utf-8><title>{status} {code}"
            f"</title><link rel=stylesheet href=/static/ui.css><main class=error><h1>{status} "
            f"{escape(code)}</h1><p>{escape(message)}</p><p><a href=/login>log in</a></p>"
            "</main></html>").encode()
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"x-dyntools-refusal", json.dumps({"code": code}).encode()),
        *SECURITY_HEADERS,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
