"""The LangChain adapter with langchain-core's real StructuredTool, ToolMessage and its
GenericFakeChatModel (no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .frameworks import load_example, require

require("langchain_core", "langchain")

from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.tools import StructuredTool  # noqa: E402

from dyntools.adapters.langchain_tools import (  # noqa: E402
    dispatch_langchain_tool_calls,
    tools_for_langchain,
)
from dyntools.catalog.core import Catalog  # noqa: E402

EXAMPLE = load_example("langchain_agent_loop")


def test_tools_are_structured_tools(catalog: Catalog) -> None:
    tools = tools_for_langchain(catalog, wanted=EXAMPLE.WANTED)
    assert all(isinstance(tool, StructuredTool) for tool in tools)
    assert [tool.name for tool in tools] == ["add_numbers", "roman_numeral", "word_count"]
    assert tools[0].args == catalog.get("add_numbers").params["properties"]  # type: ignore[union-attr]
    message = tools[0].invoke({"name": "add_numbers", "args": {"a": 1, "b": 2}, "id": "c1",
                               "type": "tool_call"})
    assert isinstance(message, ToolMessage) and json.loads(message.content) == {"sum": 3}
    failed = tools[0].invoke({"name": "add_numbers", "args": {"a": "one"}, "id": "c2",
                              "type": "tool_call"})
    assert failed.status == "error"
    assert json.loads(failed.content)["error"]["reason"] == "invalid_params"
    missing = tools[1].invoke({"name": "roman_numeral", "args": {"number": 3}, "id": "c3",
                               "type": "tool_call"})  # generation not allowed
    assert missing.status == "error"
    assert json.loads(missing.content)["error"]["reason"] == "unknown_tool"


def test_an_agent_loop_with_the_fake_model(tmp_path: Path) -> None:
    model = EXAMPLE.fake_model(
        [("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7}),
         ("multiply", {"a": "six"}), ("invented_tool", {})],
        "done")
    with EXAMPLE.build_catalog(str(tmp_path / "registry")) as catalog:
        answer, messages = EXAMPLE.run_agent(model, catalog, "go")
        assert catalog.get("roman_numeral") is not None
    assert answer == "done"
    results = [m for m in messages if isinstance(m, ToolMessage)]
    assert [m.status for m in results] == ["success", "success", "error", "error"]
    assert json.loads(results[0].content) == {"roman": "MCMXCIV", "number": 1994}
    assert json.loads(results[1].content) == {"result": 42.0}
    assert json.loads(results[3].content)["error"]["reason"] == "no_template"


def test_dispatch_an_ai_message(catalog: Catalog) -> None:
    reply = AIMessage(content="", tool_calls=[
        {"name": "add_numbers", "args": {"a": 2, "b": 2}, "id": "c1", "type": "tool_call"},
        {"name": "nope", "args": {}, "id": "c2", "type": "tool_call"}])
    first, second = dispatch_langchain_tool_calls(catalog, reply)
    assert (first.tool_call_id, first.status, json.loads(first.content)) == (
        "c1", "success", {"sum": 4})
    assert second.status == "error"
    assert dispatch_langchain_tool_calls(catalog, AIMessage(content="hi")) == []


def test_the_offline_example_runs(tmp_path: Path, capsys: Any) -> None:
    assert EXAMPLE.main(["--offline", "--registry", str(tmp_path / "registry")]) == 0
    assert capsys.readouterr().out.strip() == "1994 is MCMXCIV, and 6 x 7 = 42."


def test_the_offline_answer_is_read_from_the_tool_results(tmp_path: Path) -> None:
    """A failed tool changes the scripted model's answer: it is written from the results."""
    script = ([("roman_numeral", {"number": 1994}), ("multiply", {"a": "six", "b": 7})],
              EXAMPLE.answer_from)
    with EXAMPLE.build_catalog(str(tmp_path / "registry")) as catalog:
        answer, _ = EXAMPLE.run_agent(EXAMPLE.fake_model(*script), catalog, "go")
    assert answer.startswith("1994 is MCMXCIV, and multiply failed (")
    assert "invalid_params" in answer
