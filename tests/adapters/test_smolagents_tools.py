"""The smolagents adapter with smolagents' real Tool and ToolCallingAgent, driven by a
scripted smolagents Model (no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .frameworks import load_example, require

smolagents = require("smolagents", "smolagents")

from dyntools.adapters.smolagents_tools import (  # noqa: E402
    ToolCallFailed,
    smolagents_inputs,
    tools_for_smolagents,
)
from dyntools.catalog.core import Catalog  # noqa: E402

EXAMPLE = load_example("smolagents_agent_loop")


def test_tools_are_smolagents_tools(catalog: Catalog) -> None:
    tools = tools_for_smolagents(catalog, wanted=EXAMPLE.WANTED)
    assert all(isinstance(tool, smolagents.Tool) for tool in tools)
    assert [tool.name for tool in tools] == ["add_numbers", "roman_numeral"]
    assert tools[0].inputs == {"a": {"type": "number", "description": "a"},
                               "b": {"type": "number", "description": "b"}}
    assert tools[0](a=1, b=2) == {"sum": 3}
    with pytest.raises(ToolCallFailed) as failed:
        tools[0](a="one", b=2)
    assert json.loads(str(failed.value))["error"]["reason"] == "invalid_params"
    with pytest.raises(ToolCallFailed) as missing:  # generation not allowed
        tools[1](number=3)
    assert json.loads(str(missing.value))["error"]["reason"] == "unknown_tool"


def test_inputs_mapping() -> None:
    assert smolagents_inputs({"type": "object", "properties": {
        "x": {"type": ["string", "null"], "description": "X"},
        "y": {"type": "tuple"}, "z": {}}, "required": ["x"]}) == {
        "x": {"type": ["string", "null"], "description": "X"},
        "y": {"type": "any", "description": "y", "nullable": True},
        "z": {"type": "any", "description": "z", "nullable": True}}


def test_an_agent_run_generates_calls_and_reads_errors(tmp_path: Path) -> None:
    model = EXAMPLE.scripted_model(
        [("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7})],
        [("roman_numeral", {"number": 0})],  # passes smolagents' checks, not the tool's
        [("final_answer", {"answer": "done"})])
    with EXAMPLE.build_catalog(str(tmp_path / "registry")) as catalog:
        assert EXAMPLE.run_agent(model, catalog, "go") == "done"
        assert catalog.get("roman_numeral") is not None
    seen = json.dumps([str(m) for m in model.seen[-1]])
    assert "MCMXCIV" in seen and "42.0" in seen
    # the sandboxed tool's error reached the model at the next step, as dyntools' JSON
    assert "ToolCallFailed" in seen and '\\"station\\"' in seen


def test_the_offline_example_runs(tmp_path: Path, capsys: Any) -> None:
    assert EXAMPLE.main(["--offline", "--registry", str(tmp_path / "registry")]) == 0
    assert capsys.readouterr().out.strip() == "1994 is MCMXCIV, and 6 x 7 = 42."


def test_the_offline_answer_is_read_from_the_tool_results(tmp_path: Path) -> None:
    """A failed tool changes the scripted model's answer: it is written from the results."""
    model = EXAMPLE.scripted_model(
        [("roman_numeral", {"number": 1994})], [("multiply", {"a": "six", "b": 7})],
        lambda outputs: [("final_answer", {"answer": EXAMPLE.answer_from(outputs)})])
    with EXAMPLE.build_catalog(str(tmp_path / "registry")) as catalog:
        answer = EXAMPLE.run_agent(model, catalog, "go")
    assert answer.startswith("1994 is MCMXCIV, and multiply failed (")
