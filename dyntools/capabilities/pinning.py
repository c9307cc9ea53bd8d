"""Connections only to checked addresses, and one deadline for everything a hop does.

The broker resolves a host once, checks every address, and records them in a `Hop` held in
a context variable while that hop runs. httpcore's connection pool calls
`PinnedBackend.connect_tcp(host, port)` with the URL's host *name*; the backend connects to
the hop's checked addresses for that name and nothing else (no second lookup, so a DNS
answer that changes between the check and the connect changes nothing). A name without a
pin is refused. TLS still runs against the name: httpcore passes it as `server_hostname`
(SNI and certificate check), and the Host header comes from the URL.

`PinnedStream` enforces the hop's deadline on every operation: each read, write and the TLS
handshake get at most the time left, so a server that sends one byte a second is cut at the
deadline rather than kept alive by per-read timeouts.
"""

from __future__ import annotations

import contextvars
import ipaddress
import math
import select
import socket
import ssl
import time
import typing
from collections.abc import Iterable
from dataclasses import dataclass

import httpcore

SocketOption = typing.Any  # httpcore's SOCKET_OPTION union


@dataclass(slots=True)
class Hop:
    """What the backend may connect to during one hop, and until when."""

    pins: dict[tuple[str, int], tuple[str, ...]]
    deadline: float

    def remaining(self) -> float:
        return self.deadline - time.monotonic()


CURRENT_HOP: contextvars.ContextVar[Hop | None] = contextvars.ContextVar(
    "dyntools_broker_hop", default=None)


class UnpinnedConnect(httpcore.ConnectError):
    """A connection to a name the hop did not check (never expected: fail closed)."""


class TlsFailure(httpcore.ConnectError):
    """The TLS handshake failed (certificate, protocol)."""


def _budget(timeout: float | None) -> float | None:
    """The time an operation may take: its own timeout, capped by the hop's deadline."""
    hop = CURRENT_HOP.get()
    limit = math.inf if timeout is None else timeout
    if hop is not None:
        limit = min(limit, hop.remaining())
    return None if limit == math.inf else limit


class PinnedBackend(httpcore.NetworkBackend):
    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[SocketOption] | None = None) -> PinnedStream:
        hop = CURRENT_HOP.get()
        addresses = hop.pins.get((host, port)) if hop is not None else None
        if hop is None or not addresses:
            raise UnpinnedConnect(f"no checked address for {host}:{port}")
        last: OSError | None = None
        for address in addresses:
            budget = _budget(timeout)
            if budget is not None and budget <= 0:
                raise httpcore.ConnectTimeout("the deadline passed while connecting")
            try:
                sock = _connect(address, port, budget)
            except TimeoutError:
                raise httpcore.ConnectTimeout(f"connecting to {address} timed out") from None
            except OSError as exc:
                last = exc
                continue
            return PinnedStream(sock)
        raise httpcore.ConnectError(f"cannot connect: {last.strerror if last else 'no route'}")

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[SocketOption] | None = None
                            ) -> httpcore.NetworkStream:
        raise UnpinnedConnect("unix sockets are never brokered")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def _connect(address: str, port: int, timeout: float | None) -> socket.socket:
    # The address is a literal the broker checked: build the socket address directly so
    # nothing (not even getaddrinfo on a literal) stands between the check and connect(2).
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv4Address):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sockaddr: tuple[typing.Any, ...] = (str(ip), port)
    else:
        sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        sockaddr = (address, port, 0, 0)
    try:
        sock.settimeout(timeout)
        sock.connect(sockaddr)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except BaseException:
        sock.close()
        raise
    return sock


class PinnedStream(httpcore.NetworkStream):
    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        budget = _budget(timeout)
        if budget is not None and budget <= 0:
            raise httpcore.ReadTimeout("the request's deadline passed")
        try:
            self._sock.settimeout(budget)
            return self._sock.recv(max_bytes)
        except TimeoutError:
            raise httpcore.ReadTimeout("the request's deadline passed") from None
        except OSError as exc:
            raise httpcore.ReadError(str(exc)) from None

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        view = memoryview(buffer)
        while view:
            budget = _budget(timeout)
            if budget is not None and budget <= 0:
                raise httpcore.WriteTimeout("the request's deadline passed")
            try:
                self._sock.settimeout(budget)
                sent = self._sock.send(view)
            except TimeoutError:
                raise httpcore.WriteTimeout("the request's deadline passed") from None
            except OSError as exc:
                raise httpcore.WriteError(str(exc)) from None
            view = view[sent:]

    def close(self) -> None:
        self._sock.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> PinnedStream:
        try:
            sock = ssl_context.wrap_socket(self._sock, server_hostname=server_hostname,
                                           do_handshake_on_connect=False)
        except (OSError, ValueError) as exc:
            self._sock.close()
            raise TlsFailure(str(exc)) from None
        try:
            _handshake(sock, timeout)
        except BaseException:
            sock.close()
            raise
        return PinnedStream(sock)

    def get_extra_info(self, info: str) -> typing.Any:
        if info == "ssl_object":
            return self._sock if isinstance(self._sock, ssl.SSLSocket) else None
        if info == "client_addr":
            return self._sock.getsockname()
        if info == "server_addr":
            return self._sock.getpeername()
        if info == "socket":
            return self._sock
        if info == "is_readable":
            return _readable(self._sock)
        return None


def _handshake(sock: ssl.SSLSocket, timeout: float | None) -> None:
    """The handshake in non-blocking steps, each waiting at most the time left: a server
    that drips its handshake is cut at the deadline."""
    sock.setblocking(False)
    while True:
        try:
            sock.do_handshake()
            break
        except ssl.SSLWantReadError:
            events = select.POLLIN
        except ssl.SSLWantWriteError:
            events = select.POLLOUT
        except ssl.SSLError as exc:
            raise TlsFailure(exc.reason or str(exc)) from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from None
        budget = _budget(timeout)
        if budget is not None and budget <= 0:
            raise httpcore.ConnectTimeout("the deadline passed during the TLS handshake")
        poller = select.poll()  # not select(): no FD_SETSIZE limit
        poller.register(sock, events)
        if not poller.poll(None if budget is None else max(1, math.ceil(budget * 1000))):
            raise httpcore.ConnectTimeout("the deadline passed during the TLS handshake")
    sock.setblocking(True)


def _readable(sock: socket.socket) -> bool:
    """True when an idle pooled connection has data or was closed (the pool drops it)."""
    if sock.fileno() < 0:
        return True
    poller = select.poll()
    poller.register(sock, select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP)
    return bool(poller.poll(0))
