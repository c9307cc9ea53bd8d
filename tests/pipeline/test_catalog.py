"""The catalog fall-through: hand-written tools first, then the registry, then generation;
both kinds look and behave the same to a caller."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dyntools.catalog.core import Catalog
from dyntools.errors import BadResult, InvalidParams, ToolRuntimeError, UnknownTool, UsageError
from dyntools.generators import ToolSpec
from dyntools.pipeline.dyntools import Dyntools
from dyntools.pipeline.toolmeta import Tool

from .conftest import ECHO_EXAMPLES, CountingGenerator, tool_source

ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}


def add_numbers(params: dict[str, Any]) -> dict[str, Any]:
    """Adds two numbers."""
    return {"sum": params["a"] + params["b"]}


@pytest.fixture
def catalog(dt: Dyntools) -> Catalog:
    catalog = Catalog(dt)
    catalog.add("add_numbers", add_numbers, params=ADD_SCHEMA)
    return catalog


def test_a_catalog_hit_never_generates(catalog: Catalog, generator: CountingGenerator) -> None:
    tool = catalog.resolve("add_numbers")
    assert tool == Tool("add_numbers", "Adds two numbers.", ADD_SCHEMA, "catalog", None)
    assert catalog.call("add_numbers", {"a": 1, "b": 2}) == {"sum": 3}
    assert generator.calls == []


def test_a_miss_generates_once_then_is_served_from_the_registry_after_a_restart(
    registry_dir: Path,
) -> None:
    first = CountingGenerator({"echo_text": tool_source("echo_text", examples=ECHO_EXAMPLES)})
    with Catalog(Dyntools(registry_dir, generator=first)) as catalog:
        tool = catalog.resolve("echo_text")
        assert (tool.origin, tool.version) == ("registry", 1)
        catalog.resolve("echo_text")
        assert catalog.call("echo_text", {"text": "a"}) == {"echo": "a"}
    assert first.calls == ["echo_text"]

    after_restart = CountingGenerator()  # knows no tool: generating would fail
    with Catalog(Dyntools(registry_dir, generator=after_restart)) as catalog:
        tool = catalog.resolve("echo_text")
        assert (tool.origin, tool.version) == ("registry", 1)
        assert catalog.call("echo_text", {"text": "b"}) == {"echo": "b"}
    assert after_restart.calls == []


def test_generation_can_be_switched_off(dt: Dyntools, generator: CountingGenerator) -> None:
    with pytest.raises(UnknownTool):
        Catalog(dt, generate=False).resolve("echo_text")
    assert generator.calls == []


def test_list_tools_shows_both_kinds_in_one_shape(catalog: Catalog) -> None:
    catalog.resolve("echo_text")
    tools = {tool.name: tool.as_dict() for tool in catalog.list_tools()}
    assert set(tools) == {"add_numbers", "echo_text"}
    assert set(tools["add_numbers"]) == set(tools["echo_text"]) == {
        "name", "description", "params", "origin", "version"}
    assert tools["echo_text"]["origin"] == "registry" and tools["echo_text"]["version"] == 1
    assert tools["echo_text"]["params"]["required"] == ["text"]


def test_both_kinds_refuse_bad_params_and_report_failures_alike(catalog: Catalog) -> None:
    catalog.resolve("echo_text")
    with pytest.raises(InvalidParams):
        catalog.call("add_numbers", {"a": "1", "b": 2})
    with pytest.raises(InvalidParams):
        catalog.call("echo_text", {"text": 1})

    def broken(params: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("nope")

    catalog.add("broken_tool", broken)
    with pytest.raises(ToolRuntimeError, match="KeyError"):
        catalog.call("broken_tool", {})


def test_hand_written_results_are_json_objects(catalog: Catalog) -> None:
    catalog.add("pairs", lambda params: {"pair": (1, 2)}, description="A pair.")
    assert catalog.call("pairs", {}) == {"pair": [1, 2]}
    catalog.add("not_a_dict", lambda params: [1])  # type: ignore[arg-type,return-value]
    with pytest.raises(BadResult):
        catalog.call("not_a_dict", {})
    catalog.add("not_json", lambda params: {"x": {1, 2}})
    with pytest.raises(BadResult):
        catalog.call("not_json", {})


def test_a_catalog_name_shadows_the_registry_and_is_never_generated(
    catalog: Catalog, dt: Dyntools
) -> None:
    catalog.resolve("echo_text")
    catalog.add("echo_text", lambda params: {"echo": "hand"}, params=ADD_SCHEMA)
    assert catalog.resolve("echo_text").origin == "catalog"
    assert catalog.call("echo_text", {"a": 1, "b": 1}) == {"echo": "hand"}
    with pytest.raises(UsageError):
        catalog.ensure(ToolSpec("echo_text"), new_version=True)
    catalog.remove("echo_text")
    assert catalog.resolve("echo_text").origin == "registry"


def test_bad_catalog_entries_are_refused(catalog: Catalog) -> None:
    with pytest.raises(UsageError):
        catalog.add("Bad-Name", add_numbers)
    with pytest.raises(UsageError):
        catalog.add("arrays", add_numbers, params={"type": "array"})
    with pytest.raises(UsageError):
        catalog.add("bad_schema", add_numbers, params={"type": "object", "required": 3})


def test_the_decorator_registers_under_the_function_name(catalog: Catalog) -> None:
    @catalog.tool(params={"type": "object", "properties": {}})
    def say_hello(params: dict[str, Any]) -> dict[str, Any]:
        """Greets."""
        return {"hello": "world"}

    assert catalog.get("say_hello") == Tool("say_hello", "Greets.",
                                            {"type": "object", "properties": {}}, "catalog")
    assert say_hello({}) == {"hello": "world"}


def test_subscribers_hear_of_visible_changes_only(catalog: Catalog, dt: Dyntools) -> None:
    heard: list[str] = []
    unsubscribe = catalog.subscribe(heard.append)
    catalog.add("say_hi", lambda params: {"hi": 1})
    catalog.resolve("echo_text")  # generated: v1 becomes current
    assert heard == ["say_hi", "echo_text"]
    dt.registry.refresh("echo_text")  # nothing changed
    assert heard == ["say_hi", "echo_text"]
    dt.ensure("echo_text", new_version=True)  # v2 becomes current
    dt.registry.rollback("echo_text", 1)
    assert heard == ["say_hi", "echo_text", "echo_text", "echo_text"]
    unsubscribe()
    catalog.remove("say_hi")
    assert heard[-1] == "echo_text"
