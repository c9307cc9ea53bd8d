"""The Anthropic adapter through the real `anthropic` client against a local stub server.

The stub plays the Messages API: it answers with `tool_use` blocks (a hand-written tool, a
generated tool that does not exist yet, a missing tool, bad input), the dispatcher runs them,
and the next request carries the `tool_result` blocks back, serialised by the SDK itself.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest
from generators.stub_server import Reply, StubServer

from dyntools.adapters import dispatch_tool_uses, tool_use_blocks, tools_for_anthropic
from dyntools.catalog.core import Catalog
from dyntools.generators import ToolSpec

ROOT = Path(__file__).resolve().parents[2]
ROMAN = ToolSpec(
    "roman_numeral",
    "Converts an integer to Roman numerals.",
    {"type": "object", "properties": {"number": {"type": "integer"}}, "required": ["number"]},
    ({"params": {"number": 9}, "result": {"roman": "IX", "number": 9}},),
)


def message(*content: dict[str, Any], stop: str = "tool_use") -> Reply:
    return Reply(200, {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": list(content),
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
    })


def tool_use(block_id: str, name: str, params: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": block_id, "name": name, "input": params}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture
def client(stub: StubServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=stub.url, api_key="test-key", max_retries=0,
                               timeout=5.0)


def ask(client: anthropic.Anthropic, catalog: Catalog, **extra: Any) -> Any:
    return client.messages.create(
        model="claude-test", max_tokens=256, messages=[{"role": "user", "content": "go"}],
        tools=tools_for_anthropic(catalog, wanted=[ROMAN]), **extra,
    )


def error_of(result: dict[str, Any]) -> dict[str, Any]:
    assert result["is_error"] is True
    body: dict[str, Any] = json.loads(result["content"])["error"]
    assert set(body) == {"station", "reason", "message", "details"}
    return body


def test_tools_list_is_what_the_api_takes(
    stub: StubServer, client: anthropic.Anthropic, catalog: Catalog
) -> None:
    stub.script(message(text("no tools needed"), stop="end_turn"))
    ask(client, catalog)
    sent = stub.requests[0].json()["tools"]
    assert sent == [
        {"name": "add_numbers", "description": "Adds two numbers.",
         "input_schema": catalog.get("add_numbers").params},  # type: ignore[union-attr]
        {"name": "roman_numeral", "description": ROMAN.description,
         "input_schema": ROMAN.params},
    ]
    assert stub.requests[0].headers["authorization"] == "Bearer test-key"


def test_dispatch_runs_known_generates_missing_and_reports_errors(
    stub: StubServer, client: anthropic.Anthropic, catalog: Catalog
) -> None:
    stub.script(message(
        text("let me use some tools"),
        tool_use("toolu_1", "add_numbers", {"a": 2, "b": 3}),
        tool_use("toolu_2", "roman_numeral", {"number": 1994}),   # does not exist yet
        tool_use("toolu_3", "add_numbers", {"a": "two"}),          # invalid input
        tool_use("toolu_4", "no_such_tool", {}),                   # no template either
    ))
    response = ask(client, catalog)
    assert catalog.get("roman_numeral") is None

    results = dispatch_tool_uses(catalog, response, allow_generation=True, wanted=[ROMAN])

    assert [r["tool_use_id"] for r in results] == ["toolu_1", "toolu_2", "toolu_3", "toolu_4"]
    assert all(r["type"] == "tool_result" for r in results)
    assert results[0]["is_error"] is False
    assert json.loads(results[0]["content"]) == {"sum": 5}
    assert results[1]["is_error"] is False
    assert json.loads(results[1]["content"]) == {"roman": "MCMXCIV", "number": 1994}
    generated = catalog.get("roman_numeral")
    assert generated is not None and generated.origin == "registry"
    assert generated.version == 1
    invalid = error_of(results[2])
    assert (invalid["station"], invalid["reason"]) == ("usage", "invalid_params")
    missing = error_of(results[3])
    assert (missing["station"], missing["reason"]) == ("generate", "no_template")
    assert "no_such_tool" in missing["message"]

    # The results go back through the SDK unchanged, and the loop goes on.
    stub.script(message(text("MCMXCIV"), stop="end_turn"))
    final = client.messages.create(
        model="claude-test", max_tokens=256,
        messages=[{"role": "user", "content": "go"},
                  {"role": "assistant", "content": response.content},
                  {"role": "user", "content": results}],
    )
    assert final.content[0].text == "MCMXCIV"  # type: ignore[union-attr]
    sent = stub.requests[1].json()["messages"]
    assert sent[2]["content"] == results
    assert [b["type"] for b in sent[1]["content"]] == ["text"] + ["tool_use"] * 4


def test_missing_tool_without_generation_is_an_error_result(catalog: Catalog) -> None:
    blocks = [tool_use("toolu_1", "roman_numeral", {"number": 4})]
    [result] = dispatch_tool_uses(catalog, blocks)
    body = error_of(result)
    assert (body["station"], body["reason"]) == ("registry", "unknown_tool")
    assert catalog.get("roman_numeral") is None  # nothing was generated


def test_generated_tool_is_reused_not_regenerated(catalog: Catalog) -> None:
    blocks = [tool_use("toolu_1", "roman_numeral", {"number": 4})]
    first = dispatch_tool_uses(catalog, blocks, allow_generation=True)
    second = dispatch_tool_uses(catalog, {"content": blocks}, allow_generation=True)
    assert json.loads(first[0]["content"]) == json.loads(second[0]["content"]) == {
        "roman": "IV", "number": 4}
    assert [r.version for r in catalog.dyntools.registry.versions("roman_numeral")] == [1]
    # Nobody declared this tool: the generator was told its name and the input it got.
    record = catalog.dyntools.registry.current("roman_numeral")
    assert record is not None
    assert 'called as roman_numeral with params such as {\\"number\\": 4}' in json.dumps(
        dict(record.provenance))


@pytest.mark.parametrize("params", [None, [1, 2], "text"])
def test_input_that_is_not_an_object_is_an_error_result(catalog: Catalog, params: Any) -> None:
    [result] = dispatch_tool_uses(catalog, [tool_use("toolu_1", "add_numbers", params)])
    assert error_of(result)["reason"] == "usage_error"


@pytest.mark.parametrize("name", ["../etc", "Bad-Name", "", None])
def test_bad_names_are_error_results(catalog: Catalog, name: Any) -> None:
    [result] = dispatch_tool_uses(catalog, [tool_use("t", name, {})], allow_generation=True)
    assert error_of(result)["station"] == "usage"


def test_a_raising_hand_written_tool_is_a_runtime_error(catalog: Catalog) -> None:
    def broken(params: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("missing")

    catalog.add("broken_tool", broken)
    [result] = dispatch_tool_uses(catalog, [tool_use("t", "broken_tool", {})])
    assert error_of(result)["reason"] == "runtime_error"


def test_a_bug_in_the_catalog_is_an_internal_error_result(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(catalog, "call", explode)
    [result] = dispatch_tool_uses(catalog, [tool_use("t", "add_numbers", {"a": 1, "b": 2})])
    body = error_of(result)
    assert (body["reason"], body["message"]) == ("internal_error", "RuntimeError: boom")


def test_parallel_dispatch_keeps_order(catalog: Catalog) -> None:
    blocks = [tool_use(f"t{i}", "add_numbers", {"a": i, "b": 1}) for i in range(6)]
    results = dispatch_tool_uses(catalog, blocks, max_workers=3)
    assert [json.loads(r["content"])["sum"] for r in results] == [1, 2, 3, 4, 5, 6]


def test_only_tool_use_blocks_are_dispatched(catalog: Catalog) -> None:
    blocks = [text("hi"), {"type": "thinking", "thinking": "..."}]
    assert tool_use_blocks(blocks) == []
    assert dispatch_tool_uses(catalog, blocks) == []


def load_example() -> Any:
    path = ROOT / "examples" / "anthropic_agent_loop.py"
    spec = importlib.util.spec_from_file_location("anthropic_agent_loop", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.pop("anthropic_agent_loop", None)
    spec.loader.exec_module(module)  # must not call the API or build anything
    return module


def test_example_agent_loop_runs_against_the_stub(
    stub: StubServer, client: anthropic.Anthropic, tmp_path: Path
) -> None:
    example = load_example()
    stub.script(
        message(tool_use("toolu_1", "word_count", {"text": "the quick brown fox"}),
                tool_use("toolu_2", "add_numbers", {"a": 40, "b": 2})),
        message(text("4 words; 42"), stop="end_turn"),
    )
    with example.build_catalog(str(tmp_path / "registry")) as catalog:
        answer = example.run_agent(client, catalog, "count and add", model="claude-test")
    assert answer == "4 words; 42"
    results = stub.requests[1].json()["messages"][2]["content"]
    assert [json.loads(r["content"]) for r in results] == [
        {"words": 4, "characters": 19, "lines": 1}, {"sum": 42}]


def test_example_needs_a_key(monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert load_example().main(["hello"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err
