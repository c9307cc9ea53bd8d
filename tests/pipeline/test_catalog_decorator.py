"""`@catalog.tool` bare and called; typed signatures give their JSON Schema and are called with
keyword arguments; every misuse fails when the decorator runs, with a message naming the tool."""

from __future__ import annotations

import datetime
from typing import Any

import pydantic
import pytest

from dyntools.catalog.core import Catalog
from dyntools.errors import InvalidParams, UsageError
from dyntools.pipeline.dyntools import Dyntools


@pytest.fixture
def catalog(dt: Dyntools) -> Catalog:
    return Catalog(dt, generate=False)


def test_bare_decorator_on_a_typed_function(catalog: Catalog) -> None:
    @catalog.tool
    def multiply(a: float, b: float) -> float:
        """Multiplies two numbers."""
        return a * b

    tool = catalog.get("multiply")
    assert tool is not None and tool.description == "Multiplies two numbers."
    assert tool.params["type"] == "object"
    assert tool.params["required"] == ["a", "b"]
    assert tool.params["properties"]["a"]["type"] == "number"
    assert catalog.call("multiply", {"a": 3, "b": 2.5}) == {"result": 7.5}
    assert multiply(2, 3) == 6  # the function itself is returned unchanged
    with pytest.raises(InvalidParams):
        catalog.call("multiply", {"a": 3})
    with pytest.raises(InvalidParams):  # extra keys are refused, not silently dropped
        catalog.call("multiply", {"a": 3, "b": 1, "c": 0})


def test_called_decorator_with_a_name_and_defaults(catalog: Catalog) -> None:
    @catalog.tool("greet_person", description="Greets someone.")
    def greet(name: str, punctuation: str = "!") -> dict[str, Any]:
        return {"greeting": f"Hello, {name}{punctuation}"}

    tool = catalog.get("greet_person")
    assert tool is not None and tool.description == "Greets someone."
    assert tool.params["required"] == ["name"]
    assert catalog.call("greet_person", {"name": "Ada"}) == {"greeting": "Hello, Ada!"}
    assert catalog.get("greet") is None


class Point(pydantic.BaseModel):
    x: int
    y: int


def test_typed_values_arrive_as_their_types(catalog: Catalog) -> None:
    seen: list[Any] = []

    @catalog.tool()
    def shift_point(point: Point, day: datetime.date, dx: int = 1) -> dict[str, Any]:
        """Shifts a point."""
        seen.append((point, day))
        return {"x": point.x + dx, "y": point.y}

    assert catalog.call("shift_point", {"point": {"x": 1, "y": 2}, "day": "2026-12-01"}) == {
        "x": 2, "y": 2}
    assert isinstance(seen[0][0], Point) and seen[0][1] == datetime.date(2026, 12, 1)
    schema = catalog.get("shift_point").params  # type: ignore[union-attr]
    assert "$defs" in schema or "Point" in str(schema)


def test_dict_style_is_unchanged(catalog: Catalog) -> None:
    @catalog.tool(params={"type": "object", "properties": {"text": {"type": "string"}}})
    def shout(params: dict[str, Any]) -> dict[str, Any]:
        """Shouts."""
        return {"text": params["text"].upper()}

    @catalog.tool
    def whisper(params):  # type: ignore[no-untyped-def]
        """Whispers."""
        return {"text": params.get("text", "").lower()}

    assert catalog.call("shout", {"text": "hi"}) == {"text": "HI"}
    assert catalog.call("whisper", {"text": "HI"}) == {"text": "hi"}
    assert catalog.get("whisper").params == {"type": "object", "properties": {}}  # type: ignore[union-attr]


def untyped(a, b):  # type: ignore[no-untyped-def]
    return a


def star_args(*values: int) -> int:
    return 0


def star_kwargs(**values: int) -> int:
    return 0


def positional_only(a: int, /) -> int:
    return a


async def asynchronous(a: int) -> int:
    return a


class Opaque:
    pass


def opaque(thing: Opaque) -> int:
    return 0


@pytest.mark.parametrize("func, needle", [
    (untyped, "no type annotation"),
    (star_args, "*args"),
    (star_kwargs, "*args"),
    (asynchronous, "async"),
    (opaque, "JSON Schema"),
])
def test_misuse_fails_at_decoration_time(catalog: Catalog, func: Any, needle: str) -> None:
    with pytest.raises(UsageError, match=needle.replace("*", r"\*")):
        catalog.tool(func)
    assert catalog.get(func.__name__) is None


def test_positional_only_is_refused(catalog: Catalog) -> None:
    with pytest.raises(UsageError, match="positional-only"):
        catalog.tool(positional_only)


def test_other_misuse(catalog: Catalog) -> None:
    with pytest.raises(UsageError, match="name"):
        catalog.tool(42)  # type: ignore[call-overload]
    with pytest.raises(UsageError, match="decorates a function"):
        catalog.tool("not_callable")("a string")  # type: ignore[type-var]
    with pytest.raises(UsageError, match="snake_case"):
        catalog.tool(lambda params: {})
    with pytest.raises(UsageError, match="params= is for a function"):
        @catalog.tool(params={"type": "object", "properties": {}})
        def typed(a: int, b: int) -> int:
            return a + b
