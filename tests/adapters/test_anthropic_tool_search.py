"""Tool search with the Anthropic adapter (defer_loading), through the real SDK against the
stub; and OpenAI-shaped input is refused by the Anthropic dispatcher, not answered with []."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import pytest
from generators.stub_server import StubServer

from dyntools.adapters import dispatch_tool_uses, tools_for_anthropic
from dyntools.catalog.core import Catalog
from dyntools.errors import UsageError

from .test_anthropic_dispatch import ROMAN, client, message, stub, text, tool_use

__all__ = ["client", "stub"]  # fixtures


def test_defer_loading_with_the_catalogs_own_search(
    stub: StubServer, client: anthropic.Anthropic, catalog: Catalog
) -> None:
    tools = tools_for_anthropic(catalog, wanted=[ROMAN], defer_loading=True)
    assert [t["name"] for t in tools] == ["find_tools", "add_numbers", "roman_numeral"]
    assert "defer_loading" not in tools[0] and tools[1]["defer_loading"] is True
    assert "defer_loading" not in tools[2]  # a wanted spec: search cannot find it yet
    stub.script(message(text("searching"), tool_use("toolu_1", "find_tools",
                                                    {"query": "add two numbers"})))
    response = client.messages.create(model="claude-test", max_tokens=64, tools=tools,
                                      messages=[{"role": "user", "content": "1+2?"}])
    assert stub.requests[0].json()["tools"] == tools  # the SDK sends them as they are
    [result] = dispatch_tool_uses(catalog, response)
    assert result["is_error"] is False
    assert result["content"] == [{"type": "tool_reference", "tool_name": "add_numbers"}]
    # The tool_reference result goes back through the SDK.
    stub.script(message(tool_use("toolu_2", "add_numbers", {"a": 1, "b": 2})))
    follow = client.messages.create(
        model="claude-test", max_tokens=64, tools=tools,
        messages=[{"role": "user", "content": "1+2?"},
                  {"role": "assistant", "content": response.content},
                  {"role": "user", "content": [result]}])
    assert stub.requests[1].json()["messages"][2]["content"] == [result]
    [answer] = dispatch_tool_uses(catalog, follow)
    assert json.loads(answer["content"]) == {"sum": 3}
    # nothing found, and a bad search: both results, never exceptions
    [none] = dispatch_tool_uses(catalog, [tool_use("t3", "find_tools", {"query": "zzzz"})])
    assert none["is_error"] is False and "no tool matches" in none["content"]
    for bad in [{}, {"query": 3}, {"query": "x", "limit": "5"}, "text"]:
        [failed] = dispatch_tool_uses(catalog, [tool_use("t4", "find_tools", bad)])
        assert failed["is_error"] is True


@pytest.mark.parametrize("search, kind, name", [
    ("bm25", "tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
    ("regex", "tool_search_tool_regex_20251119", "tool_search_tool_regex"),
])
def test_defer_loading_with_the_apis_server_search(
    stub: StubServer, client: anthropic.Anthropic, catalog: Catalog, search: str, kind: str,
    name: str,
) -> None:
    tools = tools_for_anthropic(catalog, defer_loading=True, tool_search=search)
    assert tools[0] == {"type": kind, "name": name}
    # What the API answers after its own search: server blocks, then a tool_use.
    stub.script(message(
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": name,
         "input": {"query": "add"}},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
         "content": {"type": "tool_search_tool_search_result",
                     "tool_references": [{"type": "tool_reference",
                                          "tool_name": "add_numbers"}]}},
        tool_use("toolu_1", "add_numbers", {"a": 4, "b": 5})))
    response = client.messages.create(model="claude-test", max_tokens=64, tools=tools,
                                      messages=[{"role": "user", "content": "4+5"}])
    assert [b.type for b in response.content] == [
        "server_tool_use", "tool_search_tool_result", "tool_use"]
    [result] = dispatch_tool_uses(catalog, response)  # the server blocks need nothing
    assert result["tool_use_id"] == "toolu_1" and json.loads(result["content"]) == {"sum": 9}


def test_tool_search_choice_is_checked(catalog: Catalog) -> None:
    with pytest.raises(UsageError):
        tools_for_anthropic(catalog, defer_loading=True, tool_search="magic")


def openai_shapes() -> list[Any]:
    call = {"id": "call_1", "type": "function",
            "function": {"name": "add_numbers", "arguments": '{"a": 1, "b": 2}'}}
    completion = openai.types.chat.ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 0, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [call]}}]})
    response = openai.types.responses.Response.model_validate({
        "id": "r", "object": "response", "created_at": 0, "model": "gpt-test",
        "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1",
                    "name": "add_numbers", "arguments": '{"a": 1, "b": 2}'}],
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": []})
    return [completion, completion.choices[0].message, completion.choices[0].message.tool_calls,
            [call], {"tool_calls": [call]}, response, response.output]


@pytest.mark.parametrize("shape", openai_shapes(), ids=range(7))
def test_openai_shaped_calls_are_refused_not_ignored(catalog: Catalog, shape: Any) -> None:
    with pytest.raises(UsageError, match="dispatch_openai_tool_calls"):
        dispatch_tool_uses(catalog, shape)
