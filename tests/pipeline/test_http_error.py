"""Issue 28: a failed request never looks like an answer. A capability tool whose host request
fails (a 4xx/5xx answer, a refused connection) and that lets `host.HttpError` end the call
fails as `http_error` (exit 18 from `call` and `exec`); one that catches it answers as it
chose. Through the real CLI and real servers on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from dyntools.errors import ToolHttpError, ToolRuntimeError
from tests.pipeline.test_capability_cli import run


@pytest.fixture
def missing_page() -> Iterator[int]:
    """A server whose every page is a 404."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(404)
            self.send_header("Content-Length", "9")
            self.end_headers()
            self.wfile.write(b"not found")

        def log_message(self, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fetcher(port: int, *, catches: bool = False) -> str:
    url = f"http://127.0.0.1:{port}/"
    example = {"params": {}, "result": {"text": "ok"},
               "http": [{"request": {"method": "GET", "url": url},
                         "response": {"status": 200, "text": "ok"}}]}
    body = (f'    return {{"text": host.http_get({url!r})["text"]}}\n' if not catches else
            "    try:\n"
            f'        return {{"text": host.http_get({url!r})["text"]}}\n'
            "    except host.HttpError as exc:\n"
            '        return {"failed": exc.kind}\n')
    return (f'"""Gets a page."""\nimport host\n\nNAME = "get_page"\n'
            'DESCRIPTION = "Gets a page."\nPARAMS = {"type": "object"}\n'
            f"CAPABILITIES = {{'http': ['127.0.0.1:{port}']}}\n"
            f"EXAMPLES = [{example!r}]\n\n\ndef run(params):\n{body}")


def policy(tmp_path: Path, port: int) -> str:
    path = tmp_path / "policy.toml"
    path.write_text(f'[http]\nallow = ["127.0.0.1:{port}"]\nallow_private = ["127.0.0.1/32"]\n')
    return str(path)


@pytest.mark.parametrize("answer", ["status", "connection"])
def test_an_uncaught_failed_request_is_http_error(tmp_path: Path, missing_page: int,
                                                  answer: str) -> None:
    port = missing_page if answer == "status" else closed_port()
    tool = tmp_path / "get_page.py"
    tool.write_text(fetcher(port))
    reg = str(tmp_path / "reg")
    made = run("ensure", "get_page", "--generator", "file", "--from", str(tool),
               "--registry", reg)
    assert made.returncode == 0, made.stderr
    called = run("call", "get_page", "--params", "{}", "--registry", reg,
                 "--capabilities", policy(tmp_path, port))
    assert called.returncode == 18, called.stderr
    assert called.stdout == ""
    assert "error: execute/http_error: HttpError" in called.stderr
    as_json = run("call", "get_page", "--params", "{}", "--registry", reg, "--json",
                  "--capabilities", policy(tmp_path, port))
    assert as_json.returncode == 18
    assert json.loads(as_json.stdout)["error"]["reason"] == "http_error"
    once = run("exec", str(tool), "--params", "{}", "--capabilities", policy(tmp_path, port))
    assert once.returncode == 18, once.stderr


def test_a_tool_that_catches_the_error_answers_as_it_chose(tmp_path: Path,
                                                          missing_page: int) -> None:
    tool = tmp_path / "get_page.py"
    tool.write_text(fetcher(missing_page, catches=True))
    done = run("exec", str(tool), "--params", "{}", "--capabilities",
               policy(tmp_path, missing_page))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"failed": "status"}


def test_the_library_raises_a_runtime_error_kind(tmp_path: Path, missing_page: int) -> None:
    from dyntools import Dyntools
    from dyntools.generators.file import FileGenerator

    tool = tmp_path / "get_page.py"
    tool.write_text(fetcher(missing_page))
    from dyntools.capabilities.policy import resolve_capability_policy

    granted = resolve_capability_policy(policy(tmp_path, missing_page))
    with Dyntools(tmp_path / "reg", generator=FileGenerator(str(tool)),
                  capabilities=granted) as dt:
        dt.ensure("get_page")
        with pytest.raises(ToolHttpError) as raised:
            dt.call("get_page", {})
    assert isinstance(raised.value, ToolRuntimeError)
    assert raised.value.as_dict()["reason"] == "http_error"
