"""Code mode through the surfaces an agent uses: the MCP server (the SDK's client in process in
both protocol eras, and `dyntools serve-mcp --run-code` over stdio), and the Anthropic and
OpenAI dispatchers behind a fake model (the real SDK clients against a local stub). A script
reaches exactly the tools the surface serves; `run_code` is there only when asked for."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import anyio
import mcp_types as types
import openai
import pytest
from generators.stub_server import Reply, StubServer
from mcp import Client, StdioServerParameters

from dyntools.adapters import dispatch_tool_uses, tools_for_anthropic
from dyntools.adapters.mcp_server import META_TOOLS, McpToolServer
from dyntools.adapters.openai_tools import dispatch_openai_tool_calls, tools_for_openai
from dyntools.catalog.core import Catalog
from dyntools.pipeline.dyntools import Dyntools
from tests.codemode.conftest import registry_with

from .conftest import ADD_PARAMS, add_numbers

ERAS = ["legacy", "auto"]
SCRIPT = ("total = tools.add_numbers(a=inputs['a'], b=2)['sum']\n"
          "slug = tools.slugify_text(text='Hello World')['slug']\n"
          "print('sum', total)\nresult = {'total': total, 'slug': slug}\n")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Catalog]:
    """add_numbers hand-written in front of a registry with word_count and a pending
    slugify_text."""
    root = registry_with(tmp_path / "registry", pending=("slugify_text",))
    with Catalog(Dyntools(root), generate=False) as catalog:
        catalog.add("add_numbers", add_numbers, params=ADD_PARAMS)
        yield catalog


def content(result: types.CallToolResult) -> dict[str, Any]:
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    value: dict[str, Any] = json.loads(text.text)
    assert result.structured_content == value
    return value


def serve(server: McpToolServer, mode: str, scenario: Any) -> None:
    async def main() -> None:
        async with Client(server.server, mode=mode) as client:
            await scenario(client)

    anyio.run(main)
    server.close()


@pytest.mark.parametrize("mode", ERAS)
def test_mcp_run_code_waits_resumes_and_reaches_the_served_tools(served: Catalog,
                                                                 mode: str) -> None:
    server = McpToolServer(served, run_code=True)

    async def scenario(client: Client) -> None:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        assert listed[:len(META_TOOLS) + 2] == [*META_TOOLS, "run_code", "resume_run"]
        first = await client.call_tool("run_code", {"code": SCRIPT, "inputs": {"a": 1}})
        waiting = content(first)
        assert first.is_error is False and waiting["status"] == "waiting"
        assert waiting["waiting"]["tool"] == "slugify_text"
        assert waiting["output"] == ""  # printed after the wait
        resumed = content(await client.call_tool("resume_run",
                                                 {"run_id": waiting["run_id"]}))
        assert resumed["status"] == "waiting"  # nothing decided yet
        served.dyntools.approve("slugify_text", 1)
        done = await client.call_tool("resume_run", {"run_id": waiting["run_id"]})
        value = content(done)
        assert done.is_error is False and value["status"] == "ok", value
        assert value["result"] == {"total": 3, "slug": "hello-world"}
        assert value["output"] == "sum 3\n"
        assert [e["tool"] for e in value["trace"]] == ["add_numbers", "slugify_text"]

    serve(server, mode, scenario)


@pytest.mark.parametrize("mode", ERAS)
def test_mcp_refused_script_and_bad_arguments_are_error_results(served: Catalog,
                                                                mode: str) -> None:
    server = McpToolServer(served, run_code=True, tools="compact")

    async def scenario(client: Client) -> None:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        assert listed == [*META_TOOLS, "run_code", "resume_run"]
        refused = await client.call_tool("run_code", {"code": "import os\nresult = 1\n"})
        value = content(refused)
        assert refused.is_error is True and value["status"] == "refused"
        assert [(f["line"], f["col"], f["code"]) for f in value["findings"]] == [
            (1, 8, "DT201")]
        bad = await client.call_tool("run_code", {"code": 5})
        assert bad.is_error is True and content(bad)["error"]["reason"] == "invalid_params"
        unknown = await client.call_tool("resume_run", {"run_id": "0123456789abcdef"})
        assert content(unknown)["error"]["reason"] == "unknown_run"
        meta = await client.call_tool("call_tool", {"name": "run_code", "params": {}})
        assert content(meta)["error"]["station"] == "usage"

    serve(server, mode, scenario)


def test_mcp_without_run_code_has_no_code_tools(served: Catalog) -> None:
    server = McpToolServer(served)

    async def scenario(client: Client) -> None:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        assert "run_code" not in listed and "resume_run" not in listed
        refused = await client.call_tool("run_code", {"code": "result = 1\n"})
        assert refused.is_error is True
        assert content(refused)["error"]["reason"] == "unknown_tool"

    serve(server, "legacy", scenario)


def test_serve_mcp_run_code_over_stdio(tmp_path: Path) -> None:
    registry = registry_with(tmp_path / "registry")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "dyntools", "serve-mcp", "--registry", str(registry), "--run-code",
              "--tools", "compact"])

    async def scenario() -> None:
        async with Client(params, mode="legacy", read_timeout_seconds=30) as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            assert listed == [*META_TOOLS, "run_code", "resume_run"]
            code = ("counts = [tools.word_count(text=t)['words'] for t in inputs['texts']]\n"
                    "result = {'counts': counts}\n")
            value = content(await client.call_tool("run_code", {
                "code": code, "inputs": {"texts": ["a b", "c", "d e f"]}}))
            assert value["result"] == {"counts": [2, 1, 3]} and len(value["trace"]) == 3

    anyio.run(scenario)


# ---------------------------------------------------------------- Anthropic and OpenAI


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


def anthropic_message(*content_blocks: dict[str, Any]) -> Reply:
    return Reply(200, {"id": "msg_test", "type": "message", "role": "assistant",
                       "model": "claude-test", "content": list(content_blocks),
                       "stop_reason": "tool_use", "stop_sequence": None,
                       "usage": {"input_tokens": 10, "output_tokens": 20}})


def test_anthropic_run_code_is_opt_in_and_dispatched(stub: StubServer,
                                                     served: Catalog) -> None:
    client = anthropic.Anthropic(base_url=stub.url, api_key="k", max_retries=0, timeout=5.0)
    plain = [tool["name"] for tool in tools_for_anthropic(served)]
    assert "run_code" not in plain
    tools = tools_for_anthropic(served, run_code=True)
    assert [tool["name"] for tool in tools][-2:] == ["run_code", "resume_run"]
    assert tools[-2]["input_schema"]["required"] == ["code"]
    code = "result = {'sum': tools.add_numbers(a=inputs['a'], b=inputs['b'])['sum']}\n"
    stub.script(anthropic_message(
        {"type": "tool_use", "id": "t1", "name": "run_code",
         "input": {"code": code, "inputs": {"a": 2, "b": 3}}},
        {"type": "tool_use", "id": "t2", "name": "run_code", "input": {"code": "result = ("}},
    ))
    response = client.messages.create(model="claude-test", max_tokens=64, tools=tools,
                                      messages=[{"role": "user", "content": "go"}])
    assert stub.requests[0].json()["tools"][-2]["name"] == "run_code"
    results = dispatch_tool_uses(served, response, run_code=True)
    first = json.loads(results[0]["content"])
    assert results[0]["is_error"] is False and first["result"] == {"sum": 5}
    second = json.loads(results[1]["content"])
    assert results[1]["is_error"] is True and second["findings"][0]["code"] == "DT011"
    # Without the opt-in, a run_code block is a tool like any other: unknown here.
    without = dispatch_tool_uses(served, response)
    assert json.loads(without[0]["content"])["error"]["reason"] == "unknown_tool"


def test_openai_run_code_chat_and_responses(stub: StubServer, served: Catalog) -> None:
    client = openai.OpenAI(base_url=stub.url, api_key="k", max_retries=0, timeout=5.0)
    assert "run_code" not in [t["function"]["name"] for t in tools_for_openai(served)]
    chat_tools = tools_for_openai(served, run_code=True)
    assert [t["function"]["name"] for t in chat_tools][-2:] == ["run_code", "resume_run"]
    code = "result = {'words': tools.word_count(text=inputs['t'])['words']}\n"
    arguments = json.dumps({"code": code, "inputs": {"t": "one two three"}})
    stub.script(Reply(200, {
        "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "run_code", "arguments": arguments}}]}}]}))
    completion = client.chat.completions.create(model="m", messages=[
        {"role": "user", "content": "go"}], tools=chat_tools)  # type: ignore[arg-type]
    replies = dispatch_openai_tool_calls(served, completion, run_code=True)
    assert replies[0]["tool_call_id"] == "call_1"
    assert json.loads(replies[0]["content"])["result"] == {"words": 3}
    responses_tools = tools_for_openai(served, api="responses", run_code=True)
    assert responses_tools[-2]["name"] == "run_code"
    items = [{"type": "function_call", "call_id": "r1", "name": "resume_run",
              "arguments": json.dumps({"run_id": "nope"})}]
    outputs = dispatch_openai_tool_calls(served, items, run_code=True)
    assert json.loads(outputs[0]["output"])["error"]["reason"] == "unknown_run"
