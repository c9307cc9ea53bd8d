"""The one local HTTP server of the suite: a handler class served on a loopback address, on
a port the kernel picks, in a daemon thread, stopped and closed on exit (the network rule:
test traffic goes to this machine only)."""

from __future__ import annotations

import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    """A handler that keeps the test's output clean (no access log on stderr)."""

    def log_message(self, *args: Any) -> None:
        return

    def send_body(self, status: int, body: bytes, content_type: str = "text/html",
                  **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class LocalHttpServer:
    """`with LocalHttpServer(Handler) as server:` ... `server.url("/path")`."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1", *,
                 server_class: type[ThreadingHTTPServer] = _Server,
                 tls: ssl.SSLContext | None = None) -> None:
        if not host.startswith("127."):
            raise ValueError(f"test servers listen on the loopback only, not {host}")
        self.host = host
        self.httpd = server_class((host, 0), handler)
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.scheme = "https" if tls is not None else "http"
        self.port: int = self.httpd.server_address[1]
        self.base = f"{self.scheme}://{host}:{self.port}"
        # A short poll: shutdown() waits for it (0.5 s by default, per server, per test).
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)

    def url(self, path: str = "/") -> str:
        return self.base + path

    def start(self) -> LocalHttpServer:
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread.is_alive():
            self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> LocalHttpServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
