"""`dyntools serve-mcp --transport http` as a real process on 127.0.0.1, driven by the SDK's own
client over streamable HTTP in both protocol eras: the bearer token is required on every
route, a wrong one is refused, the token is never logged, and a non-loopback bind is refused."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ToolsListChanged
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from tests.support.environment import env_without_dyntools

TOKEN = "test-token-0123456789-abcdef"
WAIT = 20.0
META = ["find_tools", "call_tool", "ensure_tool", "report_failure"]


@contextmanager
def http_server(tmp_path: Path, *extra: str, token_file: bool = True
                ) -> Iterator[tuple[str, subprocess.Popen[str], Path]]:
    registry = tmp_path / "registry"
    args = [sys.executable, "-m", "dyntools", "serve-mcp", "--transport", "http",
            "--port", "0", "--registry", str(registry), "--generators", "offline",
            "--log-level", "info", *extra]
    if token_file:
        path = tmp_path / "token"
        path.write_text(TOKEN + "\n")
        args += ["--token-file", str(path)]
    env = env_without_dyntools()
    process = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               text=True, env=env)
    lines: list[str] = []
    try:
        deadline = time.monotonic() + WAIT
        url = None
        assert process.stderr is not None
        while url is None and time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                break
            lines.append(line)
            found = re.search(r"serving MCP on (http://\S+)", line)
            url = found.group(1) if found else None
        assert url is not None, "".join(lines)
        process.lines = lines  # type: ignore[attr-defined]
        yield url, process, registry
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def client_for(url: str, mode: str, token: str | None = TOKEN, handler: Any = None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(transport, mode=mode, message_handler=handler, read_timeout_seconds=30)


def value(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is False, result.content
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    return dict(json.loads(text.text))


def test_both_eras_over_http_with_the_token(tmp_path: Path) -> None:
    with http_server(tmp_path) as (url, _process, registry):
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")

        async def legacy() -> None:
            heard = anyio.Event()

            async def handler(message: Any) -> None:
                if isinstance(message, types.ToolListChangedNotification):
                    heard.set()

            async with client_for(url, "legacy", handler=handler) as client:
                caps = client.session.server_capabilities
                assert caps is not None and caps.tools is not None and caps.tools.list_changed
                assert [t.name for t in (await client.list_tools()).tools] == META
                made = value(await client.call_tool("ensure_tool", {"name": "slugify_text"}))
                assert made["created"] is True
                with anyio.fail_after(WAIT):
                    await heard.wait()
                assert value(await client.call_tool("call_tool", {
                    "name": "slugify_text", "params": {"text": "Hi There"}})) == {
                    "slug": "hi-there"}

        async def current() -> None:
            async with client_for(url, "auto") as client:
                assert client.session.protocol_version == "2026-07-28"
                async with client.listen(tools_list_changed=True) as events:
                    names = [t.name for t in (await client.list_tools()).tools]
                    assert names == [*META, "slugify_text"]
                    value(await client.call_tool("ensure_tool", {"name": "roman_numeral"}))
                    with anyio.fail_after(WAIT):
                        assert isinstance(await anext(events), ToolsListChanged)
                    assert value(await client.call_tool("roman_numeral", {"number": 9}))[
                        "roman"] == "IX"
                    found = value(await client.call_tool("find_tools", {"query": "roman"}))
                    assert found["tools"][0]["name"] == "roman_numeral"

        anyio.run(legacy)
        anyio.run(current)
        assert (registry / "roman_numeral").is_dir()
        audit = (registry / "audit.log").read_text()
        assert "mcp.serving" in audit and TOKEN not in audit


def test_a_missing_or_wrong_token_is_refused(tmp_path: Path) -> None:
    with http_server(tmp_path) as (url, _, registry):
        async def scenario(token: str | None, mode: str) -> None:
            with pytest.RaisesGroup(pytest.RaisesGroup(
                    pytest.RaisesExc(MCPError, match="error response"))):
                async with client_for(url, mode, token=token) as client:
                    await client.call_tool("ensure_tool", {"name": "slugify_text"})

        for token in [None, "wrong-token-0123456789", TOKEN + "x", TOKEN[:-1]]:
            for mode in ("legacy", "auto"):
                anyio.run(scenario, token, mode)
        assert not (registry / "slugify_text").exists()


def test_every_route_needs_the_token(tmp_path: Path) -> None:
    with http_server(tmp_path) as (url, process, _):
        base = url.rsplit("/", 1)[0]
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}
        accept = {"Accept": "application/json, text/event-stream"}
        with httpx2.Client(timeout=10) as http:
            for method, path, headers in [
                ("POST", "/mcp", {}),
                ("GET", "/mcp", {}),
                ("DELETE", "/mcp", {}),
                ("GET", "/", {}),
                ("GET", "/anything/else", {}),
                ("POST", "/mcp", {"Authorization": f"Basic {TOKEN}"}),
                ("POST", "/mcp", {"Authorization": f"Bearer  {TOKEN}x"}),
                ("POST", "/mcp", {"Authorization": "Bearer"}),
                ("POST", "/mcp", {"authorization": f"bearer {TOKEN.upper()}"}),
            ]:
                response = http.request(method, base + path, headers={**accept, **headers},
                                        json=body if method == "POST" else None)
                assert response.status_code == 401, (method, path, headers)
                assert response.headers["www-authenticate"].startswith("Bearer")
            # two Authorization headers: refused even if one is right
            response = http.post(url, json=body, headers=[
                ("Accept", accept["Accept"]), ("Authorization", f"Bearer {TOKEN}"),
                ("Authorization", "Bearer other")])
            assert response.status_code == 401
            ok = http.post(url, json=body, headers={**accept,
                                                    "Authorization": f"Bearer {TOKEN}"})
            assert ok.status_code == 200
            # DNS rebinding: a foreign Host is refused even with the token
            rebound = http.post(url, json=body, headers={
                **accept, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example:80"})
            assert rebound.status_code in (403, 421)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 130  # interrupted: the documented exit code
        assert process.stderr is not None
        assert TOKEN not in "".join(process.lines) + process.stderr.read()  # type: ignore[attr-defined]


def test_a_generated_token_is_printed_once_and_works(tmp_path: Path) -> None:
    with http_server(tmp_path, token_file=False) as (url, process, registry):
        printed = [line for line in process.lines  # type: ignore[attr-defined]
                   if line.startswith("bearer token (shown once): ")]
        assert len(printed) == 1
        token = printed[0].split(": ", 1)[1].strip()
        assert len(token) >= 32

        async def scenario() -> None:
            async with client_for(url, "legacy", token=token) as client:
                assert [t.name for t in (await client.list_tools()).tools] == META

        anyio.run(scenario)
        assert token not in (registry / "audit.log").read_text()


def cli(*args: str) -> Any:
    from click.testing import CliRunner

    from dyntools.cli import main

    return CliRunner().invoke(main, ["serve-mcp", *args])


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.com", "127.0.0.1.nip.io"])
def test_a_non_loopback_bind_is_refused(tmp_path: Path, host: str) -> None:
    result = cli("--transport", "http", "--host", host, "--port", "0",
                 "--registry", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert "not a loopback address" in result.output and "--allow-remote" in result.output
    assert "shown once" not in result.output  # refused before a token was made


@pytest.mark.parametrize("args, needle", [
    (["--token-file", "{empty}"], "16 to 4096"),
    (["--token-file", "/dev/null"], "is a character device, not a regular file"),
    (["--allow-remote"], None),
])
def test_token_and_option_checks(tmp_path: Path, args: list[str], needle: str | None) -> None:
    (tmp_path / "empty").write_text("")
    args = [arg.format(empty=tmp_path / "empty") for arg in args]
    transport = ["--transport", "http"] if needle else []
    result = cli(*transport, "--port", "0", "--registry", str(tmp_path / "r"), *args)
    assert result.exit_code == 2, result.output
    assert (needle or "apply to --transport http") in result.output
