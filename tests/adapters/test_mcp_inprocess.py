"""The MCP server's parts in process: failures as results, the schema, the notifier."""

from __future__ import annotations

import json
import threading
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged

from dyntools.adapters.mcp_server import (
    ENSURE_TOOL,
    META_TOOLS,
    McpToolServer,
    ToolListNotifier,
    ensure_tool_schema,
)
from dyntools.catalog.core import Catalog
from dyntools.errors import UsageError


def error_body(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is True
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    body: dict[str, Any] = json.loads(text.text)["error"]
    return body


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_bug_is_an_error_result_and_the_server_keeps_serving(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    server = McpToolServer(catalog)
    real_call = catalog.call
    calls = {"n": 0}

    def flaky(name: str, params: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("boom")
        return real_call(name, params, **kwargs)

    monkeypatch.setattr(catalog, "call", flaky)

    async def scenario() -> None:
        async with Client(server.server, mode=mode) as client:
            body = error_body(await client.call_tool("add_numbers", {"a": 1, "b": 2}))
            assert (body["reason"], body["message"]) == ("internal_error", "RuntimeError: boom")
            result = await client.call_tool("add_numbers", {"a": 1, "b": 2})
            assert result.is_error is False
            assert result.structured_content == {"sum": 3}
            bad = error_body(await client.call_tool("Not A Name", {}))
            assert bad["station"] == "usage"

    anyio.run(scenario)
    server.close()


def test_a_failing_listing_still_offers_ensure_tool(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = McpToolServer(catalog)

    def broken() -> list[Any]:
        raise OSError("disk gone")

    monkeypatch.setattr(catalog, "list_tools", broken)

    async def scenario() -> None:
        async with Client(server.server, mode="legacy") as client:
            assert [t.name for t in (await client.list_tools()).tools] == list(META_TOOLS)

    anyio.run(scenario)
    server.close()


def test_catalog_tools_are_listed_with_their_schemas(catalog: Catalog) -> None:
    server = McpToolServer(catalog)
    tools = {tool.name: tool for tool in server.tools()}
    assert list(tools) == [*META_TOOLS, "add_numbers"]
    assert tools["add_numbers"].input_schema == catalog.get("add_numbers").params  # type: ignore[union-attr]
    assert tools["add_numbers"].description == "Adds two numbers."
    server.close()


def test_a_catalog_tool_cannot_shadow_ensure_tool(catalog: Catalog) -> None:
    catalog.add(ENSURE_TOOL, lambda params: {"hijacked": True})
    server = McpToolServer(catalog)
    listed = [tool for tool in server.tools() if tool.name == ENSURE_TOOL]
    assert len(listed) == 1 and "Create a missing tool" in (listed[0].description or "")
    server.close()


def test_source_is_offered_only_with_the_file_generator() -> None:
    assert "source" not in ensure_tool_schema(["offline", "anthropic"])["properties"]
    assert "source" in ensure_tool_schema(["offline", "file"])["properties"]


def test_source_without_file_generator_is_refused(catalog: Catalog) -> None:
    server = McpToolServer(catalog, generators=["offline"])
    with pytest.raises(UsageError):
        server.ensure_tool({"name": "word_count", "source": "x = 1"})
    server.close()


@pytest.mark.parametrize("generators", [[], ["offline", "shell"]])
def test_unknown_generators_are_refused(catalog: Catalog, generators: list[str]) -> None:
    with pytest.raises(UsageError):
        McpToolServer(catalog, generators=generators)


def test_notifier_coalesces_a_burst_from_other_threads() -> None:
    bus = InMemorySubscriptionBus()
    notifier = ToolListNotifier(bus, coalesce_seconds=0.5)
    published: list[Any] = []
    bus.subscribe(published.append)
    notifier.poke("before_serving")  # no loop yet: nothing to notify, nothing raised

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(notifier.run)
            await anyio.sleep(0.05)

            def burst() -> None:
                for index in range(5):
                    notifier.poke(f"tool_{index}")

            thread = threading.Thread(target=burst)
            thread.start()
            await anyio.to_thread.run_sync(thread.join)
            with anyio.fail_after(10):
                while not published:
                    await anyio.sleep(0.05)
            await anyio.sleep(0.6)  # a second publish would have happened by now
            group.cancel_scope.cancel()

    anyio.run(scenario)
    assert published == [ToolsListChanged()]


def test_a_thread_that_pokes_while_the_loop_ends_is_never_stuck() -> None:
    """The registry watch's thread pokes whenever another process writes; the loop can end
    at any moment (the client left). A poke that waited for the loop hung for good about one
    time in five when the loop ended between the hand-off and the call, and with it the
    watch's join at the server's exit. Every poke returns at once now."""
    stuck = 0
    for _ in range(60):
        notifier = ToolListNotifier(InMemorySubscriptionBus(), coalesce_seconds=0.0)
        stop = threading.Event()
        done = threading.Event()

        def poker(notifier: ToolListNotifier = notifier, stop: threading.Event = stop,
                  done: threading.Event = done) -> None:
            while not stop.is_set():
                notifier.poke("tool")
            done.set()

        async def scenario(notifier: ToolListNotifier = notifier,
                           poker: Any = poker) -> None:
            async with anyio.create_task_group() as group:
                group.start_soon(notifier.run)
                await anyio.sleep(0.002)
                threading.Thread(target=poker, daemon=True).start()
                await anyio.sleep(0.003)
                group.cancel_scope.cancel()

        anyio.run(scenario)
        stop.set()
        stuck += not done.wait(2.0)
    assert stuck == 0


def test_a_closed_notifier_sends_nothing_more() -> None:
    """Once the session closes, a change (a late watch event, an activation) sends nothing."""
    bus = InMemorySubscriptionBus()
    notifier = ToolListNotifier(bus, coalesce_seconds=0.05)
    published: list[Any] = []
    bus.subscribe(published.append)

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(notifier.run)
            await anyio.sleep(0.02)
            notifier.poke("tool_a")
            with anyio.fail_after(10):
                while not published:
                    await anyio.sleep(0.01)
            notifier.poke("tool_b")  # due in 50 ms ...
            notifier.close()  # ... but the session closes first
            await anyio.to_thread.run_sync(notifier.poke, "tool_c")
            await anyio.sleep(0.2)
            group.cancel_scope.cancel()

    anyio.run(scenario)
    assert published == [ToolsListChanged()]


@pytest.mark.parametrize("from_thread", [True, False])
def test_a_handshake_client_hears_changes_without_asking_first(
    catalog: Catalog, from_thread: bool
) -> None:
    server = McpToolServer(catalog, coalesce_seconds=0.01)
    heard = anyio.Event()

    async def handler(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard.set()

    def add_tool() -> None:
        catalog.add("new_tool", lambda params: {"ok": True})

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(server.notifier.run)
            async with Client(server.server, mode="legacy", message_handler=handler):
                with anyio.fail_after(10):  # only initialize and initialized were sent
                    while not server.notifier.has_legacy_client:
                        await anyio.sleep(0.01)
                if from_thread:
                    await anyio.to_thread.run_sync(add_tool)
                else:
                    add_tool()
                with anyio.fail_after(10):
                    await heard.wait()
            group.cancel_scope.cancel()

    anyio.run(scenario)
    server.close()


def test_ensure_tool_refuses_its_own_name(catalog: Catalog) -> None:
    """A tool named ensure_tool would be created but never reachable through this server."""
    server = McpToolServer(catalog, generators=("offline", "file"))
    source = '"""x."""\nNAME = "ensure_tool"\nDESCRIPTION = "x."\nPARAMS = {"type": "object"}\n'
    with pytest.raises(UsageError, match="own tool"):
        server.ensure_tool({"name": ENSURE_TOOL, "source": source})
    assert ENSURE_TOOL not in catalog.dyntools.registry.names()
    server.close()
