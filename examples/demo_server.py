"""The page `make demo` fetches through the host: one HTML page on 127.0.0.1:PORT.

    python examples/demo_server.py 8765          # serve until killed
    python examples/demo_server.py --wait 8765   # exit 0 once it answers (10 s at most)
"""

from __future__ import annotations

import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = (b"<!doctype html><html><head><title>Hello from the demo page</title></head>"
        b"<body><p>Fetched by the host's broker for a sandboxed tool.</p></body></html>")


class Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        return


def wait(port: int) -> int:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return 0
        except OSError:
            time.sleep(0.05)
    print(f"the demo page did not come up on 127.0.0.1:{port}", file=sys.stderr)
    return 1


def main() -> int:
    if sys.argv[1:2] == ["--wait"]:
        return wait(int(sys.argv[2]))
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Page).serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
