"""The OpenAI Agents SDK adapter with the SDK's real Agent, Runner and FunctionTool, driven by a
scripted `Model` (no network, tracing off)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .frameworks import load_example, require

agents = require("agents", "openai-agents")

from dyntools.adapters.openai_agents import (  # noqa: E402
    dispatch_openai_agents_call,
    tools_for_openai_agents,
)
from dyntools.catalog.core import Catalog  # noqa: E402

EXAMPLE = load_example("openai_agents_loop")


def outputs(model: Any) -> list[Any]:
    """The function_call_output items the model was sent on its last turn."""
    return [json.loads(item["output"]) for item in model.inputs[-1]
            if isinstance(item, dict) and item.get("type") == "function_call_output"]


def test_tools_are_function_tools(catalog: Catalog) -> None:
    tools = tools_for_openai_agents(catalog, wanted=EXAMPLE.WANTED)
    assert all(isinstance(tool, agents.FunctionTool) for tool in tools)
    assert [tool.name for tool in tools] == ["add_numbers", "roman_numeral", "word_count"]
    assert tools[0].params_json_schema == catalog.get("add_numbers").params  # type: ignore[union-attr]
    assert tools[0].strict_json_schema is False


def test_an_agent_run_generates_calls_and_reads_errors(tmp_path: Path) -> None:
    model = EXAMPLE.scripted_model([
        [("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7})],
        [("multiply", {"a": "six"}), ("word_count", {})],
        "done",
    ])
    with EXAMPLE.build_catalog(str(tmp_path / "registry")) as catalog:
        assert EXAMPLE.run_agent(catalog, "go", model) == "done"
        assert catalog.get("roman_numeral") is not None  # generated on demand
    assert model.inputs and len(model.inputs) == 3
    second = [json.loads(item["output"]) for item in model.inputs[1]
              if isinstance(item, dict) and item.get("type") == "function_call_output"]
    assert second == [{"roman": "MCMXCIV", "number": 1994}, {"result": 42.0}]
    errors = outputs(model)[-2:]  # the last turn's input holds the whole history
    assert [e["error"]["reason"] for e in errors] == ["invalid_params", "invalid_params"]


def test_generation_is_off_unless_allowed(catalog: Catalog) -> None:
    text = dispatch_openai_agents_call(catalog, "roman_numeral", '{"number": 4}')
    assert json.loads(text)["error"]["reason"] == "unknown_tool"
    for bad in ['{"a": 1,', "[1]", "[" * 50_000 + "]" * 50_000, 7]:
        body = json.loads(dispatch_openai_agents_call(catalog, "add_numbers", bad))  # type: ignore[arg-type]
        assert body["error"]["station"] == "usage"


def test_the_offline_example_runs(tmp_path: Path, capsys: Any) -> None:
    assert EXAMPLE.main(["--offline", "--registry", str(tmp_path / "registry")]) == 0
    assert capsys.readouterr().out.strip() == "1994 is MCMXCIV, and 6 x 7 = 42."


def test_the_offline_answer_is_read_from_the_tool_results(tmp_path: Path) -> None:
    """A failed tool changes the scripted model's answer: it is written from the results."""
    model = EXAMPLE.scripted_model(
        [[("roman_numeral", {"number": 1994}), ("multiply", {"a": "six", "b": 7})],
         EXAMPLE.answer_from])
    with EXAMPLE.build_catalog(str(tmp_path / "registry")) as catalog:
        answer = EXAMPLE.run_agent(catalog, "go", model)
    assert answer.startswith("1994 is MCMXCIV, and multiply failed (")
