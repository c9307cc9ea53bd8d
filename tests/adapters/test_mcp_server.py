"""`dyntools serve-mcp` as a real process, driven by the mcp SDK's own client over stdio.

One server per era: the handshake era (`mode="legacy"`, `notifications/tools/list_changed`)
and the current one (`subscriptions/listen`). Each walks the issue's story: list, call,
ensure a missing tool, hear that the list changed, see and call the new tool; then a gate
rejection, a timeout and other failures come back as error results while the server keeps
serving, and changes made by another process (a new version, a rollback, a quarantine) reach
the client through the registry watch.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.subscriptions import ToolsListChanged

from dyntools.generators.offline import template_source
from dyntools.registry import Registry

META = ["find_tools", "call_tool", "ensure_tool", "report_failure"]
WAIT = 15.0  # generous: a loaded CI machine; the tests never assert speed
SANDBOX_TIMEOUT = "1"

SPIN = '''"""Spins until the sandbox stops it."""

NAME = "spin_forever"
DESCRIPTION = "Counts forever; only the sandbox timeout ends it."
PARAMS = {"type": "object", "properties": {}}


def run(params):
    count = 0
    while True:
        count += 1
    return {"count": count}
'''

UNSAFE = '''"""Runs a shell command."""

NAME = "shell_out"
DESCRIPTION = "Runs a command."
PARAMS = {"type": "object", "properties": {}}


def run(params):
    return {"status": os.system("id")}
'''


class ListChanges:
    """Counts `notifications/tools/list_changed` seen by a handshake-era client, and keeps
    transport faults (a line on stdout that is not JSON-RPC would arrive as one)."""

    def __init__(self) -> None:
        self.count = 0
        self.faults: list[Exception] = []
        self._event = anyio.Event()

    async def handler(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.faults.append(message)
        if isinstance(message, types.ToolListChangedNotification):
            self.count += 1
            self._event.set()

    async def after(self, seen: int) -> None:
        """Wait until more than `seen` notifications have arrived."""
        with anyio.fail_after(WAIT):
            while self.count <= seen:
                await self._event.wait()
                self._event = anyio.Event()


def server_params(registry: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "dyntools", "serve-mcp", "--registry", str(registry),
              "--timeout", SANDBOX_TIMEOUT, "--generators", "offline,file", *extra],
    )


@asynccontextmanager
async def connect(registry: Path, mode: str, handler: Any = None) -> AsyncIterator[Client]:
    async with Client(server_params(registry), mode=mode, message_handler=handler,
                      read_timeout_seconds=30) as client:
        yield client


async def names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is False, result.content
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    value: dict[str, Any] = json.loads(text.text)
    assert result.structured_content == value
    return value


def error(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is True, result.content
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    body: dict[str, Any] = json.loads(text.text)["error"]
    assert set(body) == {"station", "reason", "message", "details"}
    assert result.structured_content == {"error": body}
    return body


def write_version(registry: Path, name: str, source: str) -> int:
    """Another process's write (this test process, not the server)."""
    record = Registry.open(registry).add_version(name, source, {"generator": "file"})
    return record.version


def test_handshake_era(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    changes = ListChanges()

    async def scenario() -> None:
        async with connect(registry, "legacy", changes.handler) as client:
            assert client.session.protocol_version not in ("2026-07-28",)
            caps = client.session.server_capabilities
            assert caps is not None and caps.tools is not None and caps.tools.list_changed

            listed = (await client.list_tools()).tools
            assert [t.name for t in listed] == META
            ensure_schema = listed[2].input_schema
            assert ensure_schema["required"] == ["name"]
            assert ensure_schema["properties"]["generator"]["enum"] == ["offline", "file"]

            # A missing tool, created by ensure_tool with the offline generator.
            seen = changes.count
            progress: list[tuple[float, float | None, str | None]] = []

            async def on_progress(done: float, total: float | None, text: str | None) -> None:
                progress.append((done, total, text))

            made = ok(await client.call_tool("ensure_tool", {
                "name": "slugify_text", "generator": "offline",
                "examples": [{"params": {"text": "A B"}, "result": {"slug": "a-b"}}],
            }, progress_callback=on_progress))
            assert [text.split(":")[0] for _, _, text in progress if text] == [
                "lookup", "generate", "gate", "load", "verify", "persist", "activate"]
            assert [done for done, _, _ in progress] == [1, 2, 3, 4, 5, 6, 7]
            assert (made["tool"]["name"], made["version"], made["created"]) == (
                "slugify_text", 1, True)
            assert [s["station"] for s in made["stations"] if s["outcome"] != "running"][-1] \
                == "activate"
            await changes.after(seen)
            listed = (await client.list_tools()).tools
            assert [t.name for t in listed] == [*META, "slugify_text"]
            assert listed[len(META)].input_schema["required"] == ["text"]
            assert ok(await client.call_tool("slugify_text", {"text": "Hello World"})) == {
                "slug": "hello-world"}
            # The meta-tools reach it too (for clients that never refresh their list).
            assert ok(await client.call_tool("find_tools", {"query": "url slug"}))["tools"][0][
                "name"] == "slugify_text"
            assert ok(await client.call_tool("call_tool", {
                "name": "slugify_text", "params": {"text": "A B"}})) == {"slug": "a-b"}

            # Ensuring it again is a lookup, not a new version.
            again = ok(await client.call_tool("ensure_tool", {"name": "slugify_text"}))
            assert (again["version"], again["created"]) == (1, False)

            # The gate refuses, nothing is written, the client reads why.
            refused = error(await client.call_tool("ensure_tool", {
                "name": "shell_out", "generator": "file", "source": UNSAFE}))
            assert (refused["station"], refused["reason"]) == ("gate", "unsafe_source")
            assert refused["details"]["findings"]
            assert all({"code", "line", "col", "message"} <= set(f)
                       for f in refused["details"]["findings"])
            assert not (registry / "shell_out").exists()

            # A tool written by another process arrives through the watch.
            seen = changes.count
            write_version(registry, "spin_forever", SPIN)
            await changes.after(seen)
            assert "spin_forever" in await names(client)

            # The sandbox timeout is an error result; the server keeps serving.
            timed_out = error(await client.call_tool("spin_forever", {}))
            assert (timed_out["station"], timed_out["reason"]) == ("execute", "timeout")
            assert ok(await client.call_tool("slugify_text", {"text": "Still Here"})) == {
                "slug": "still-here"}

            # Every other kind of failure is a readable result too.
            unknown = error(await client.call_tool("no_such_tool", {}))
            assert (unknown["station"], unknown["reason"]) == ("registry", "unknown_tool")
            assert "ensure_tool" in unknown["details"]["hint"]
            invalid = error(await client.call_tool("slugify_text", {"text": 3}))
            assert invalid["reason"] == "invalid_params"
            no_template = error(await client.call_tool("ensure_tool", {"name": "zip_codes"}))
            assert (no_template["station"], no_template["reason"]) == (
                "generate", "no_template")
            bad_name = error(await client.call_tool("ensure_tool", {"name": "../../etc"}))
            assert bad_name["station"] == "usage"
            bad_args = error(await client.call_tool("ensure_tool", {"name": "x", "bogus": 1}))
            assert bad_args["reason"] == "invalid_params"
            mismatch = error(await client.call_tool("ensure_tool", {
                "name": "word_count", "generator": "offline", "source": SPIN}))
            assert mismatch["station"] == "usage"

            # A file edited on disk is quarantined live and leaves the list.
            seen = changes.count
            path = registry / "spin_forever" / "v1.py"
            path.chmod(0o644)
            path.write_text(SPIN.replace("count += 1", "count += 2"))
            await changes.after(seen)
            assert "spin_forever" not in await names(client)
            gone = error(await client.call_tool("spin_forever", {}))
            assert gone["station"] == "registry"

            assert ok(await client.call_tool("slugify_text", {"text": "Last Call"})) == {
                "slug": "last-call"}

    anyio.run(scenario)
    assert changes.faults == []


def test_current_era_subscription_stream(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    wire = ListChanges()

    async def scenario() -> None:
        async with connect(registry, "auto", wire.handler) as client:
            assert client.session.protocol_version == "2026-07-28"
            async with client.listen(tools_list_changed=True) as events:
                assert await names(client) == META

                made = ok(await client.call_tool("ensure_tool", {"name": "roman_numeral"}))
                assert made["tool"]["name"] == "roman_numeral"
                with anyio.fail_after(WAIT):
                    assert isinstance(await anext(events), ToolsListChanged)
                assert await names(client) == [*META, "roman_numeral"]
                assert ok(await client.call_tool("roman_numeral", {"number": 1994})) == {
                    "roman": "MCMXCIV", "number": 1994}

                # A new version written by another process, then a rollback: both notified.
                changed = template_source("roman_numeral").replace(
                    "Converts an integer", "Turns an integer")
                assert write_version(registry, "roman_numeral", changed) == 2
                await wait_for_description(client, events, "Turns an integer")
                Registry.open(registry).rollback("roman_numeral", 1)
                await wait_for_description(client, events, "Converts an integer")

                refused = error(await client.call_tool("ensure_tool", {
                    "name": "shell_out", "source": UNSAFE}))
                assert refused["reason"] == "unsafe_source"

                write_version(registry, "spin_forever", SPIN)
                with anyio.fail_after(WAIT):
                    while "spin_forever" not in await names(client):
                        await anext(events)
                timed_out = error(await client.call_tool("spin_forever", {}))
                assert timed_out["reason"] == "timeout"
                assert ok(await client.call_tool("roman_numeral", {"number": 4}))["roman"] \
                    == "IV"

    anyio.run(scenario)
    assert wire.faults == []


async def wait_for_description(client: Client, events: Any, start: str) -> None:
    with anyio.fail_after(WAIT):
        while True:
            await anext(events)
            tools = {t.name: t for t in (await client.list_tools()).tools}
            description = tools["roman_numeral"].description or ""
            if description.startswith(start):
                return


@pytest.mark.parametrize("value", ["", "offline,shell", "nope"])
def test_generators_option_is_checked(tmp_path: Path, value: str) -> None:
    from click.testing import CliRunner

    from dyntools.cli import main

    result = CliRunner().invoke(main, ["serve-mcp", "--registry", str(tmp_path),
                                       "--generators", value])
    assert result.exit_code == 2
    assert "--generators" in result.output


def test_compact_over_stdio_with_the_contract_resource(tmp_path: Path) -> None:
    """A compact server lists only the meta-tools; a tool created through them is callable
    at once, and the contract is readable as a resource."""
    registry = tmp_path / "registry"

    async def scenario() -> None:
        params = server_params(registry, "--tools", "compact", "--page-size", "2")
        async with Client(params, mode="legacy", read_timeout_seconds=30) as client:
            first = await client.list_tools()
            assert [t.name for t in first.tools] == META[:2] and first.next_cursor
            rest = await client.list_tools(cursor=first.next_cursor)
            assert [t.name for t in rest.tools] == META[2:] and rest.next_cursor is None
            ok(await client.call_tool("ensure_tool", {"name": "word_count"}))
            assert ok(await client.call_tool("call_tool", {
                "name": "word_count", "params": {"text": "a b"}}))["words"] == 2
            contract = await client.read_resource("dyntools://tool-contract")
            text = contract.contents[0]
            assert isinstance(text, types.TextResourceContents) and "EXAMPLES" in text.text

    anyio.run(scenario)
