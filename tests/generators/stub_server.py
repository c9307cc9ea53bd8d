"""A scripted HTTP server on 127.0.0.1 for testing real SDK clients without a network.

    with StubServer() as stub:
        stub.script(Reply(429, {"error": ...}, headers={"retry-after-ms": "1"}), Reply(200, body))
        client = anthropic.Anthropic(base_url=stub.url, api_key="k", max_retries=1)
        ...
        stub.requests[1].json()["messages"]

Each request takes the next scripted `Reply` (any method, any path) and is recorded. When the
script runs out the server answers 599 with a message saying so, so a test that makes one call
too many fails loudly instead of hanging. A reply with `delay` sleeps before answering (a model
that does not answer in time); closing the server cuts every pending delay short.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.local_http import LocalHttpServer

EXHAUSTED_STATUS = 599


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = None  # dict/list -> JSON, str/bytes -> as is
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def encoded(self) -> tuple[bytes, str]:
        if isinstance(self.body, bytes):
            return self.body, "application/octet-stream"
        if isinstance(self.body, str):
            return self.body.encode("utf-8"), "text/plain; charset=utf-8"
        return json.dumps(self.body).encode("utf-8"), "application/json"


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class StubServer:
    def __init__(self, *replies: Reply) -> None:
        self.requests: list[RecordedRequest] = []
        self._replies: deque[Reply] = deque(replies)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._http = LocalHttpServer(self._handler_class())
        self._server = self._http.httpd
        self._server.block_on_close = False

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def start(self) -> StubServer:
        self._http.start()
        return self

    def close(self) -> None:
        self._stopping.set()
        self._http.close()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._replies:
                return self._replies.popleft()
        return Reply(EXHAUSTED_STATUS, {"error": f"stub: no scripted reply for request "
                                                 f"#{len(self.requests)}"})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes

            def do_POST(self) -> None:
                self._answer()

            def do_GET(self) -> None:
                self._answer()

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                reply = stub._next(
                    RecordedRequest(
                        self.command,
                        self.path,
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                    )
                )
                if reply.delay and stub._stopping.wait(reply.delay):
                    return
                payload, content_type = reply.encoded()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", content_type)
                    self.send_header("content-length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to deliver

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep test output clean

        return Handler
