"""`dyntools serve-mcp` over stdio at its two ends: what a person sees who starts it in a
terminal, and a client that leaves while the tool list is changing (the SDK's own client,
in a process of its own, so everything it and the server print can be read)."""

from __future__ import annotations

import ast
import os
import pty
import select
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from tests.support.environment import env_without_dyntools

WAITING = "waiting for an MCP client on stdin; see docs/adapters.md"
ROOT = Path(__file__).resolve().parents[2]

# A client that makes a tool with ensure_tool and leaves while another writer keeps adding
# versions of it (each one a change the registry watch hands to the server's notifier from
# its own thread), so notifications are due while the session closes.
CLIENT = r'''
import sys
import threading

import anyio
from mcp import Client, StdioServerParameters

from dyntools.generators.offline import template_source
from dyntools.registry import Registry

registry, mode = sys.argv[1], sys.argv[2]


def writer(stop):
    versions = Registry.open(registry)
    n = 0
    while not stop.is_set():
        n += 1
        source = template_source("word_count").replace("Counts the words",
                                                       f"Counts ({n}) the words")
        versions.add_version("word_count", source, {"generator": "file"})
        stop.wait(0.02)


async def main():
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "dyntools", "serve-mcp", "--registry", registry, "--generators", "offline"])
    stop = threading.Event()
    async with Client(params, mode=mode, read_timeout_seconds=30) as client:
        made = await client.call_tool("ensure_tool", {"name": "word_count"})
        assert made.is_error is False, made.content
        thread = threading.Thread(target=writer, args=(stop,))
        thread.start()
        await anyio.sleep(0.4)
    stop.set()
    thread.join()
    print("left")


anyio.run(main)
'''


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_client_that_leaves_while_the_list_changes_sees_no_traceback(
        tmp_path: Path, mode: str) -> None:
    registry = tmp_path / "registry"
    env = env_without_dyntools()
    done = subprocess.run([sys.executable, "-c", CLIENT, str(registry), mode], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    # The client's stderr carries the server's too (the SDK passes it through).
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "left"
    assert "Traceback" not in done.stderr
    assert WAITING not in done.stderr  # stdin was a pipe, not a person
    audit = (registry / "audit.log").read_text()
    assert '"mcp.stopped"' in audit  # it ended its session as the client closed stdin


def test_a_terminal_on_stdin_is_told_what_the_server_waits_for(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    env = env_without_dyntools()
    process = subprocess.Popen(
        [sys.executable, "-m", "dyntools", "serve-mcp", "--registry", str(tmp_path / "r"),
         "--generators", "offline"],
        stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    try:
        assert process.stderr is not None
        seen = b""
        deadline = time.monotonic() + 60
        while WAITING.encode() not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([process.stderr], [], [], 1.0)
            if ready:
                chunk = os.read(process.stderr.fileno(), 4096)
                if not chunk:
                    break
                seen += chunk
        assert WAITING.encode() in seen, seen.decode(errors="replace")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
        assert process.stdout is not None
        assert process.stdout.read() == b""  # stdout stays the protocol's
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)


def test_the_http_default_port_is_not_the_demo_page_nor_the_review_page() -> None:
    from dyntools.cli import main
    from dyntools.cli.app import load_commands

    load_commands(["serve-mcp", "ui"])

    def default_port(command: str) -> int:
        option = next(p for p in main.commands[command].params if p.name == "port")
        return int(option.default)

    demo = tomllib.loads((ROOT / "examples" / "demo_capabilities.toml").read_text())
    demo_ports = {int(host.rsplit(":", 1)[1]) for host in demo["http"]["allow"]}
    mcp_port = default_port("serve-mcp")
    assert demo_ports == {8765}
    assert mcp_port not in demo_ports
    assert mcp_port != default_port("ui")
    assert mcp_port == 8767


def test_serve_mcp_starts_without_any_model_sdk(tmp_path: Path) -> None:
    """Every offered generator (the default), a model option given: the server starts,
    answers a client and ends without importing anthropic or openai; a model's SDK is
    imported when ensure_tool first asks that model (bench/mcp.py measures the start)."""
    probe = (
        "import sys\n"
        "from dyntools.cli import script\n"
        "sys.argv = ['dyntools', 'serve-mcp', '--registry', sys.argv[1], "
        "'--model', 'claude-opus-4-5']\n"
        "code = 0\n"
        "try:\n"
        "    script()\n"
        "except SystemExit as exc:\n"
        "    code = exc.code or 0\n"
        "sys.stderr.write('\\n' + repr([code, sorted(sys.modules)]) + '\\n')\n"
    )
    initialize = ('{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": '
                  '{"protocolVersion": "2025-11-25", "capabilities": {}, '
                  '"clientInfo": {"name": "t", "version": "0"}}}\n')
    env = env_without_dyntools()
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "registry")],
                          input=initialize, capture_output=True, text=True, env=env,
                          timeout=120, check=True)
    assert '"serverInfo"' in done.stdout  # it served
    code, modules = ast.literal_eval(done.stderr.strip().splitlines()[-1])
    assert code == 0
    sdks = [m for m in modules if m.split(".")[0] in ("anthropic", "openai")]
    assert sdks == []
    assert "dyntools.generators.anthropic" in modules  # the options were checked at start
