"""Real HTTP servers on 127.0.0.x for the broker's tests (threaded, one route table each).

    with LocalServer() as server:               # 127.0.0.1, a free port
        server.url("/echo")                     # http://127.0.0.1:PORT/echo
        server.connections, server.requests     # what reached it

Routes: /echo (JSON of what arrived), /redirect?to=URL&code=302, /loop (redirects to itself),
/status/NNN,
/echo-secret (the Authorization header echoed in body, headers and an error; ?fold=upper
upper-cases it first), /echo-range (`auth=<Authorization>`, honouring Range), /big?n=BYTES
(with a Content-Length), /endless (no length, streams until the client goes), /drip (one
byte a second), /gzip-bomb, /latin1. `HangServer` accepts and never answers.
"""

from __future__ import annotations

import base64
import gzip
import http.server
import json
import socket
import ssl
import threading
import time
import urllib.parse
from typing import Any

from tests.support.local_http import LocalHttpServer


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._route()

    def do_POST(self) -> None:
        self._route()

    def _route(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parsed = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(parsed.query, encoding="latin-1"))
        self.server.owner.requests.append({
            "method": self.command, "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", "replace"),
        })
        route = parsed.path.strip("/").split("/")[0] or "echo"
        getattr(self, "r_" + route.replace("-", "_"), self.r_echo)(parsed, query, body)

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def r_echo(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        data = {"method": self.command, "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode("utf-8", "replace")}
        self._send(200, json.dumps(data).encode(), {"Content-Type": "application/json"})

    def r_redirect(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        self._send(int(query.get("code", "302")), b"moved", {"Location": query["to"]})

    def r_loop(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        self._send(302, b"again", {"Location": "/loop"})

    def r_charset(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        self._send(200, query.get("body", "ab-cd").encode("latin-1"),
                   {"Content-Type": f"text/plain; charset={query['name']}"})

    def r_switch(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.end_headers()
        self.close_connection = True

    def r_status(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        code = int(parsed.path.strip("/").split("/")[1])
        self._send(code, f"status {code} body".encode())

    def r_echo_secret(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        auth = self.headers.get("Authorization", "")
        if query.get("fold") == "upper":  # an echo that upper-cases what it repeats
            auth = auth.upper()
        token = auth.split(" ", 1)[-1]
        text = (f"auth={auth} token={token} quoted={urllib.parse.quote(token, safe='')} "
                f"b64={base64.b64encode(token.encode()).decode()} "
                f"basic={base64.b64encode(('user:' + token).encode()).decode()} "
                f"hex={token.encode().hex()} json={json.dumps({'t': token})}")
        status = int(query.get("status", "200"))
        self._send(status, text.encode(), {"X-Echo": auth, "X-Token-" + token[:8]: "1",
                                           "Set-Cookie": f"t={token}"})

    def r_echo_range(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        """`auth=<Authorization>`, and only the bytes a `Range: bytes=A-B` asks for (206)."""
        text = f"auth={self.headers.get('Authorization', '')}".encode()
        wanted = self.headers.get("Range", "")
        if wanted.startswith("bytes=") and "-" in wanted:
            first, _, last = wanted[6:].partition("-")
            piece = text[int(first):int(last) + 1]
            self._send(206, piece, {"Content-Range": f"bytes {first}-{last}/{len(text)}"})
            return
        self._send(200, text)

    def r_big(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        self._send(200, b"x" * int(query.get("n", "2000000")))

    def r_endless(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        self.send_response(200)
        self.send_header("Connection", "close")
        self.end_headers()
        chunk = b"y" * 65536
        try:
            while True:
                self.wfile.write(chunk)
                self.server.owner.sent += len(chunk)
        except OSError:
            self.server.owner.client_gone.set()
        self.close_connection = True

    def r_drip(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.flush()
        try:
            for _ in range(1000):
                self.wfile.write(b"z")
                self.wfile.flush()
                time.sleep(float(query.get("every", "1")))
        except OSError:
            self.server.owner.client_gone.set()
        self.close_connection = True

    def r_gzip_bomb(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        payload = gzip.compress(b"\0" * (8 * 1024 * 1024))
        self._send(200, payload, {"Content-Encoding": "gzip"})

    def r_latin1(self, parsed: Any, query: dict[str, str], body: bytes) -> None:
        self._send(200, "café".encode("latin-1"),
                   {"Content-Type": "text/plain; charset=iso-8859-1"})


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    owner: LocalServer

    def process_request(self, request: Any, client_address: Any) -> None:
        self.owner.connections += 1
        super().process_request(request, client_address)


class LocalServer:
    def __init__(self, host: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> None:
        self.host = host
        self.tls = tls
        self.requests: list[dict[str, Any]] = []
        self.connections = 0
        self.sent = 0
        self.client_gone = threading.Event()
        self._http = LocalHttpServer(_Handler, host, server_class=_Server, tls=tls)
        self._server = self._http.httpd
        self._server.owner = self
        self.port = self._http.port

    @property
    def hostport(self) -> str:
        return f"{self.host}:{self.port}"

    def url(self, path: str = "/echo", host: str | None = None) -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://{host or self.host}:{self.port}{path}"

    def __enter__(self) -> LocalServer:
        self._http.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.close()


class HangServer:
    """Accepts connections and never sends a byte (a stalled TLS handshake or response)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self._sock = socket.socket()
        self._sock.bind((host, 0))
        self._sock.listen(16)
        self.port = self._sock.getsockname()[1]
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        self._sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            self._held.append(conn)

    def __enter__(self) -> HangServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        for conn in self._held:
            conn.close()
        self._sock.close()
