"""The MCP server over streamable HTTP (the SDK's transport), behind a bearer token.

    token = new_token()
    anyio.run(lambda: serve_http(McpToolServer(catalog), host="127.0.0.1", port=8767,
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
import json
import socket
from collections.abc import Callable
from typing import Any

import anyio

from dyntools.adapters.mcp_server import McpToolServer
from dyntools.base import listening
from dyntools.base.listening import ASGIApp, Receive, Scope, Send, is_loopback
from dyntools.base.log import get_logger

MCP_PATH = "/mcp"



def check_token(token: str) -> str:
    """The bearer token as sent in a header."""
    return listening.check_token(token, "bearer token")


def bind(host: str, port: int, *, allow_remote: bool) -> socket.socket:
    """The listening socket; a non-loopback host is refused unless `allow_remote`."""
    return listening.bind(host, port, allow_remote=allow_remote,
                          what="The server runs tools and creates them", guard="bearer token")


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
