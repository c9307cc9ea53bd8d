"""find_tools, call_tool, ensure_tool's new arguments, compact mode, pagination and the
contract resource, through the SDK's client in process, in both protocol eras; then what a
model can put in those arguments to crash, stall or confuse the server."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from dyntools.adapters.mcp_server import CONTRACT_URI, META_TOOLS, McpToolServer
from dyntools.catalog.core import Catalog
from dyntools.generators.offline import template_source

ERAS = ["legacy", "auto"]


def value(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is False, result.content
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    return dict(json.loads(text.text))


def error(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is True, result.content
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    return dict(json.loads(text.text)["error"])


def serve(server: McpToolServer, mode: str, scenario: Any) -> None:
    async def main() -> None:
        async with Client(server.server, mode=mode) as client:
            await scenario(client)

    anyio.run(main)
    server.close()


@pytest.mark.parametrize("mode", ERAS)
def test_a_client_that_never_refreshes_finds_and_calls_a_new_tool(
    catalog: Catalog, mode: str
) -> None:
    server = McpToolServer(catalog, generators=("offline", "file"))

    async def scenario(client: Client) -> None:
        first = [tool.name for tool in (await client.list_tools()).tools]
        assert first == [*META_TOOLS, "add_numbers"]  # listed once, never again
        made = value(await client.call_tool("ensure_tool", {
            "name": "slugify_text", "description": "Turns a title into a URL slug.",
            "params_schema": {"type": "object", "properties": {"text": {"type": "string"}},
                              "required": ["text"]},
            "examples": [{"params": {"text": "A B"}, "result": {"slug": "a-b"}}]}))
        assert (made["tool"]["name"], made["created"], made["similar"]) == (
            "slugify_text", True, [])
        found = value(await client.call_tool("find_tools", {"query": "make a url slug"}))
        assert found["tools"][0]["name"] == "slugify_text"
        assert found["tools"][0]["params_schema"]["required"] == ["text"]
        called = value(await client.call_tool("call_tool", {
            "name": "slugify_text", "params": {"text": "Hello World"}}))
        assert called == {"slug": "hello-world"}
        assert value(await client.call_tool("call_tool", {
            "name": "add_numbers", "params": {"a": 1, "b": 2}})) == {"sum": 3}
        missing = error(await client.call_tool("call_tool", {"name": "no_such_tool"}))
        assert missing["reason"] == "unknown_tool" and "find_tools" in missing["details"]["hint"]
        meta = error(await client.call_tool("call_tool", {"name": "call_tool", "params": {}}))
        assert meta["station"] == "usage"
        nothing = value(await client.call_tool("find_tools", {"query": "zzzz qqqq"}))
        assert nothing["tools"] == [] and "ensure_tool" in nothing["hint"]

    serve(server, mode, scenario)


@pytest.mark.parametrize("mode", ERAS)
def test_ensure_tool_new_version_contract_change_and_similar(catalog: Catalog,
                                                            mode: str) -> None:
    server = McpToolServer(catalog, generators=("offline", "file"))
    changed = template_source("word_count").replace('"words": len(text.split())',
                                                    '"words": 99')
    assert changed != template_source("word_count")

    async def scenario(client: Client) -> None:
        value(await client.call_tool("ensure_tool", {"name": "word_count"}))
        same = value(await client.call_tool("ensure_tool", {"name": "word_count"}))
        assert (same["version"], same["created"]) == (1, False)
        again = value(await client.call_tool("ensure_tool", {
            "name": "word_count", "new_version": True}))
        assert (again["version"], again["created"]) == (2, True)
        # A version that breaks what v2 promised is refused unless the contract changes.
        broken = error(await client.call_tool("ensure_tool", {
            "name": "word_count", "new_version": True, "source": changed}))
        assert broken["reason"] == "verification_failed"
        stale = error(await client.call_tool("ensure_tool", {
            "name": "word_count", "examples": [{"params": {"text": "a"},
                                                "result": {"words": 7}}]}))
        assert stale["reason"] == "verification_failed"
        assert "new_version: true" in stale["details"]["hint"]
        orphan = error(await client.call_tool("ensure_tool", {
            "name": "word_count", "contract_change": True}))
        assert orphan["station"] == "usage"
        # A similar tool is reported, and served instead of generating when asked.
        spec = {"name": "count_words", "description": "Counts the words in a text."}
        reported = error(await client.call_tool("ensure_tool", spec))
        assert reported["reason"] == "no_template"  # reported, then generation was tried
        reused = value(await client.call_tool("ensure_tool", {**spec, "reuse_similar": True}))
        assert reused["reused"] == "word_count" and reused["created"] is False
        assert reused["similar"][0]["name"] == "word_count"
        assert catalog.get("count_words") is None

    serve(server, mode, scenario)


@pytest.mark.parametrize("mode", ERAS)
def test_compact_lists_only_the_meta_tools(catalog: Catalog, mode: str) -> None:
    server = McpToolServer(catalog, tools="compact")

    async def scenario(client: Client) -> None:
        listed = (await client.list_tools()).tools
        assert [tool.name for tool in listed] == list(META_TOOLS)
        ensure = listed[2]
        assert "NAME" in (ensure.description or "") and CONTRACT_URI in (ensure.description or "")
        assert "re, " in (ensure.description or "")  # the allow-list summary
        assert value(await client.call_tool("add_numbers", {"a": 2, "b": 3})) == {"sum": 5}
        assert value(await client.call_tool("find_tools", {"query": "add two numbers"}))[
            "tools"][0]["name"] == "add_numbers"

    serve(server, mode, scenario)


@pytest.mark.parametrize("mode", ERAS)
def test_tools_list_is_paginated_and_cursors_survive_changes(catalog: Catalog,
                                                            mode: str) -> None:
    for index in range(7):
        catalog.add(f"tool_{index}", lambda params: {}, description=f"Tool {index}.")
    server = McpToolServer(catalog, page_size=3)

    async def scenario(client: Client) -> None:
        pages: list[list[str]] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            pages.append([tool.name for tool in page.tools])
            if len(pages) == 2:
                catalog.add("tool_5a", lambda params: {})  # added behind the cursor
                catalog.remove("tool_0")                     # removed before it
            cursor = page.next_cursor
            if cursor is None:
                break
        seen = [name for page in pages for name in page]
        assert all(len(page) <= 3 for page in pages)
        assert seen[:len(META_TOOLS)] == list(META_TOOLS)
        assert len(seen) == len(set(seen))  # nothing twice
        assert {"add_numbers", "tool_1", "tool_6", "tool_5a"} <= set(seen)
        for bad in ["garbage", "%%%", "MDoxOg", "x" * 10_000, "\u00e9"]:
            with pytest.raises(MCPError) as caught:
                await client.list_tools(cursor=bad, cache_mode="refresh")
            assert caught.value.code == types.INVALID_PARAMS

    serve(server, mode, scenario)


@pytest.mark.parametrize("mode", ERAS)
def test_the_contract_resource(catalog: Catalog, mode: str) -> None:
    server = McpToolServer(catalog)

    async def scenario(client: Client) -> None:
        resources = (await client.list_resources()).resources
        assert [str(r.uri) for r in resources] == [CONTRACT_URI]
        read = await client.read_resource(CONTRACT_URI)
        text = read.contents[0]
        assert isinstance(text, types.TextResourceContents)
        assert "def run(params)" in text.text and "unicodedata:" in text.text
        with pytest.raises(MCPError):
            await client.read_resource("file:///etc/passwd")

    serve(server, mode, scenario)


def deep(levels: int) -> Any:
    node: Any = {"type": "object"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"x": node}}
    return node


HOSTILE_ENSURE = [
    {"params_schema": {"type": "object", "properties": {"a": {"type": "string",
                                                              "pattern": "^(a|a?)+\\1$"}}}},
    {"params_schema": {"type": "array"}},
    {"params_schema": {"type": "object", "$ref": "http://169.254.169.254/x"}},
    {"params_schema": {"type": "object", "properties": {"a": {
        "anyOf": [{"type": "string", "minLength": i} for i in range(100)]}}}},
    {"params_schema": {"type": "object", "properties": {
        f"p{i}": {"type": "string", "description": "x" * 100} for i in range(2000)}}},
    {"params_schema": {"type": "object"}, "params": {"type": "object"}},
    {"examples": [{"params": {}, "result": {}}] * 300},
    {"examples": [{"params": {"text": "x" * 2_000_000}, "result": {}}]},
    {"examples": [{"params": [1], "result": {}}]},
    {"examples": [{"params": {}, "result": {}, "extra": 1}]},
    {"examples": "not a list"},
    {"new_version": "yes"},
    {"description": "x" * 100_000},
    {"name": "find_tools"},
    {"name": "../../../etc/passwd"},
    {"name": "x" * 10_000},
]


@pytest.mark.parametrize("extra", HOSTILE_ENSURE, ids=range(len(HOSTILE_ENSURE)))
def test_hostile_ensure_arguments_are_usage_errors(catalog: Catalog, extra: dict[str, Any]
                                                   ) -> None:
    server = McpToolServer(catalog, generators=("offline",))

    async def scenario(client: Client) -> None:
        with anyio.fail_after(30):
            body = error(await client.call_tool("ensure_tool", {"name": "word_count", **extra}))
        assert body["station"] == "usage", body
        assert not (catalog.dyntools.registry.root / "word_count").exists()
        # and the server still serves
        assert value(await client.call_tool("add_numbers", {"a": 1, "b": 1})) == {"sum": 2}

    serve(server, "legacy", scenario)


HOSTILE_FIND = ['"', "NEAR(a b)", "*", "x" * 999, "\x00", "\ud800", "日本", "", "a OR b AND c"]


def test_hostile_find_and_call_arguments(catalog: Catalog) -> None:
    server = McpToolServer(catalog)

    async def scenario(client: Client) -> None:
        for query in HOSTILE_FIND:
            result = await client.call_tool("find_tools", {"query": query})
            assert result.is_error is False or error(result)["station"] == "usage"
        for arguments in [{"query": "x" * 5000}, {"query": 3}, {"query": "a", "limit": 10**9},
                          {"query": "a", "limit": -1}, {}, {"query": "a", "extra": 1}]:
            assert error(await client.call_tool("find_tools", arguments))["station"] == "usage"
        for arguments in [{"name": 3}, {"name": "add_numbers", "params": [1]},
                          {"name": "add_numbers", "params": {"a": "x", "b": 1}},
                          {"name": "add_numbers", "params": deep(100)},
                          {"name": "x" * 100}, {}]:
            assert error(await client.call_tool("call_tool", arguments))["station"] == "usage"
        assert value(await client.call_tool("call_tool", {
            "name": "add_numbers", "params": {"a": 1, "b": 2}})) == {"sum": 3}

    serve(server, "legacy", scenario)
