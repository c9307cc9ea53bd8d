"""Where dyntools' local servers listen (serve-mcp over HTTP, the review page), and their
tokens: one implementation of the loopback rule, the bound socket and the token checks, and
the ASGI types their middleware is written against.

    token = check_token(new_token(), "bearer token")
    sock = bind("127.0.0.1", 0, allow_remote=False, what="The server runs tools")
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from dyntools.errors import UsageError

MIN_TOKEN_CHARS = 16
MAX_TOKEN_CHARS = 4096

# What both servers' middleware speak: ASGI (the app, its scope and messages).
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def new_token() -> str:
    """A fresh token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def check_token(token: str, what: str, *, forbidden: str = "") -> str:
    """A token as typed or stored: printable ASCII without spaces (nor any of `forbidden`),
    16..4096 characters; UsageError naming `what` otherwise."""
    token = token.strip()
    if not MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS:
        raise UsageError(f"the {what} must be {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} "
                         f"characters (got {len(token)})")
    if not all("!" <= ch <= "~" and ch not in forbidden for ch in token):
        extra = "".join(f", {ch!r}" for ch in forbidden)
        raise UsageError(f"the {what} may hold only printable ASCII without spaces{extra}")
    return token


def read_token(path: str) -> str:
    """A token from `--token-file PATH` (checked by the caller); UsageError if it is not a
    regular file (dyntools/base/regular_files.py), cannot be read or is not UTF-8."""
    from dyntools.base.regular_files import read_regular

    try:
        return read_regular(path, 8192).decode("utf-8")
    except OSError as exc:
        raise UsageError(f"--token-file {path}: cannot read it ({exc.strerror or exc})"
                         ) from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"--token-file {path}: cannot read it ({exc})") from None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int, *, allow_remote: bool, what: str, guard: str) -> socket.socket:
    """The listening socket. A non-loopback host is refused unless `allow_remote`; `what`
    says what the server can do and `guard` what guards it then, for that refusal."""
    if not allow_remote and not is_loopback(host):
        raise UsageError(f"refusing to listen on {host!r}: not a loopback address. {what}; "
                         f"pass --allow-remote to expose it beyond this machine (the {guard} "
                         "is then all that guards it)")
    if not 0 <= port <= 65535:
        raise UsageError(f"port {port} is not 0..65535")
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    try:
        sock = socket.create_server((bare, port), family=family)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    # Accepted connections inherit it. Without it, a response written as headers then body
    # waits for the client's delayed ACK on a kept-alive connection: 40 ms a request.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock
