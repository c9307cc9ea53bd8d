"""A server process driven over its pipes with JSON-RPC lines (MCP's stdio transport, handshake
era), for bench/mcp.py and bench/code_mode.py. Named for what it speaks, not `mcp`: a module
of that name here would shadow the SDK for the benches that import it."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

DEADLINE = 120.0  # seconds for any one answer: a broken server fails the bench, not hangs it


class Session:
    """One server process, one JSON-RPC line at a time; counts the bytes of every line both
    ways."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._next_id = 0
        self.sent = 0
        self.received = 0

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             notification: bool = False) -> int:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notification:
            self._next_id += 1
            message["id"] = self._next_id
        line = json.dumps(message).encode() + b"\n"
        self.sent += len(line)
        assert self.process.stdin is not None
        self.process.stdin.write(line)
        self.process.stdin.flush()
        return self._next_id

    def answer(self, request_id: int) -> dict[str, Any]:
        """The response to `request_id` (notifications on the way are skipped)."""
        assert self.process.stdout is not None
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit(f"the server ended (exit {self.process.wait()}) before "
                                 f"answering request {request_id}")
            self.received += len(line)
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == request_id:
                if "error" in message:
                    raise SystemExit(f"request {request_id} failed: {message['error']}")
                return message
        raise SystemExit(f"no answer to request {request_id} in {DEADLINE:.0f} s")

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.answer(self.send(method, params))

    def counted(self) -> int:
        """Bytes sent and received so far."""
        return self.sent + self.received

    def cpu_seconds(self) -> float:
        """User and system CPU the server process has used so far (its own, not children's)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
