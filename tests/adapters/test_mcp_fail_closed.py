"""`dyntools serve-mcp` on a host below the sandbox's default minimum (no seccomp, simulated:
tests/support/missing_layer.py): a tool call is an error result naming `layer_unavailable`
while the server keeps serving; with `--allow-weaker-sandbox` (or DYNTOOLS_ALLOW_WEAKER_SANDBOX=1) the
server says so on stderr at start and the call runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from dyntools.generators.offline import template_source
from dyntools.registry import Registry
from tests.support.missing_layer import SIMULATED, env_without_seccomp

WARNING = ("warning: {source}: tool code may run where the sandbox is below its default "
           "minimum (seccomp, and mountns with userns or landlock_fs); the audit log records "
           "each such worker")


def _registry(tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    Registry.open(root).add_version("slugify_text", template_source("slugify_text"),
                                    {"generator": "test"})
    return root


def _call(registry: Path, env: dict[str, str], *extra: str) -> types.CallToolResult:
    params = StdioServerParameters(
        command=sys.executable, env=env,
        args=["-m", "dyntools", "serve-mcp", "--registry", str(registry), "--no-watch",
              *extra])

    async def scenario() -> types.CallToolResult:
        async with Client(params, mode="legacy", read_timeout_seconds=30) as client:
            first = await client.call_tool("slugify_text", {"text": "A b"})
            second = await client.call_tool("slugify_text", {"text": "A b"})  # still serving
            assert second.is_error == first.is_error
            return first

    return anyio.run(scenario)


def test_a_call_is_refused_below_the_minimum(tmp_path: Path) -> None:
    result = _call(_registry(tmp_path), env_without_seccomp(tmp_path / "no-seccomp"))
    assert result.is_error is True
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    error = json.loads(text.text)["error"]
    assert error["reason"] == "layer_unavailable"
    assert f"seccomp ({SIMULATED})" in error["message"]
    assert "--allow-weaker-sandbox" in error["message"]


def test_the_opt_in_runs_the_call_and_is_shown_at_start(tmp_path: Path) -> None:
    registry = _registry(tmp_path)
    env = env_without_seccomp(tmp_path / "no-seccomp")
    result = _call(registry, {**env, "DYNTOOLS_ALLOW_WEAKER_SANDBOX": "1"})
    assert result.is_error is False, result.content
    assert result.structured_content == {"slug": "a-b"}
    # stdin closed at once: the server starts, says what it must, and ends (exit 0)
    done = subprocess.run([sys.executable, "-m", "dyntools", "serve-mcp", "--registry",
                           str(registry), "--no-watch", "--allow-weaker-sandbox"], input=b"",
                          capture_output=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert WARNING.format(source="--allow-weaker-sandbox") in done.stderr.decode().splitlines()
