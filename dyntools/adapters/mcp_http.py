"""The MCP server over streamable HTTP (the SDK's transport), behind a bearer token.

    token = new_token()
    anyio.run(lambda: serve_http(McpToolServer(catalog), host="127.0.0.1", port=8765,
                                 token=token))

Every HTTP request, on every path, must carry `Authorization: Bearer <token>`; anything else
is answered 401 before it reaches the SDK (`BearerTokenGuard`, an ASGI wrapper around the
SDK's Starlette app). The comparison is `hmac.compare_digest` (constant time in the token's
content), exactly one Authorization header is accepted, and the token is never logged: the
access log is off, and the guard logs only that a request was refused, with its path.

Binding: loopback addresses (127.0.0.0/8, ::1, `localhost`) only, unless the caller passes
`allow_remote=True`; on loopback the SDK's DNS-rebinding protection (Host and Origin checks)
is on as well. The socket is bound before serving, so `port=0` picks a free port and `ready`
is told the real URL.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio

from dyntools.adapters.mcp_server import McpToolServer
from dyntools.errors import UsageError
from dyntools.log import get_logger

MCP_PATH = "/mcp"
MIN_TOKEN_CHARS = 16
MAX_TOKEN_CHARS = 4096

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def new_token() -> str:
    """A fresh bearer token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def check_token(token: str) -> str:
    """The token as sent in a header: printable ASCII, no spaces, 16..4096 characters."""
    token = token.strip()
    if not MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS:
        raise UsageError(f"the bearer token must be {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} "
                         f"characters (got {len(token)})")
    if not all("!" <= ch <= "~" for ch in token):
        raise UsageError("the bearer token may hold only printable ASCII without spaces")
    return token


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class BearerTokenGuard:
    """ASGI: every HTTP or WebSocket request needs `Authorization: Bearer <token>`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._expected = check_token(token).encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._app(scope, receive, send)
            return
        if scope["type"] in ("http", "websocket") and self._authorized(scope):
            await self._app(scope, receive, send)
            return
        get_logger("adapter.mcp").warning("mcp.http_unauthorized", path=str(scope.get("path")))
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": "unauthorized: send Authorization: Bearer <token>"}).encode()
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b'Bearer realm="dyntools"'),
        ]})
        await send({"type": "http.response.body", "body": body})

    def _authorized(self, scope: Scope) -> bool:
        values = [value for key, value in scope.get("headers", ())
                  if key.lower() == b"authorization"]
        if len(values) != 1:
            return False
        scheme, _, credentials = bytes(values[0]).partition(b" ")
        # compare_digest runs in time independent of where the bytes differ.
        same = hmac.compare_digest(credentials.strip(), self._expected)
        return scheme.lower() == b"bearer" and same


def bind(host: str, port: int, *, allow_remote: bool) -> socket.socket:
    """The listening socket; a non-loopback host is refused unless `allow_remote`."""
    if not allow_remote and not is_loopback(host):
        raise UsageError(f"refusing to listen on {host!r}: not a loopback address. The server "
                         "runs tools and creates them; pass --allow-remote to expose it beyond "
                         "this machine (the bearer token is then all that guards it)")
    if not 0 <= port <= 65535:
        raise UsageError(f"port {port} is not 0..65535")
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    try:
        return socket.create_server((host.strip("[]"), port), family=family)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _rebinding_guard(host: str) -> Any:
    """On loopback, only loopback Host and Origin headers (DNS rebinding); None elsewhere."""
    from mcp.server.transport_security import TransportSecuritySettings

    if not is_loopback(host):
        return None
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    hosts = [f"{shown}:*", "127.0.0.1:*", "localhost:*", "[::1]:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts])


def url_for(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{MCP_PATH}"


async def serve_http(
    server: McpToolServer,
    *,
    token: str,
    host: str = "127.0.0.1",
    port: int = 0,
    allow_remote: bool = False,
    sock: socket.socket | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve over streamable HTTP until interrupted (SIGINT/SIGTERM end it gracefully)."""
    import uvicorn

    guard_token = check_token(token)
    listening = sock if sock is not None else bind(host, port, allow_remote=allow_remote)
    app = server.server.streamable_http_app(streamable_http_path=MCP_PATH, host=host,
                                            transport_security=_rebinding_guard(host))
    config = uvicorn.Config(BearerTokenGuard(app, guard_token), log_level="warning",
                            access_log=False, lifespan="on", server_header=False)
    http = uvicorn.Server(config)
    url = url_for(listening)
    log = get_logger("adapter.mcp")
    async with anyio.create_task_group() as group:
        group.start_soon(server.notifier.run)
        log.info("mcp.serving", transport="http", url=url, generators=list(server.generators),
                 tools=server.tools_mode)
        if ready is not None:
            ready(url)
        try:
            await http.serve(sockets=[listening])
        finally:
            group.cancel_scope.cancel()
            listening.close()
    log.info("mcp.stopped")
