"""The options every adapter function takes (`DispatchOptions`), declared once in
dyntools/adapters/core.py: each function honours them, and a misspelled one is still a
TypeError (it would otherwise silently turn generation, a generator or a timeout off)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dyntools.adapters.anthropic_tools import dispatch_tool_uses
from dyntools.adapters.openai_tools import dispatch_openai_tool_calls
from dyntools.catalog.core import Catalog
from dyntools.generators.base import ToolSpec

ANTHROPIC_CALL = [{"type": "tool_use", "id": "t1", "name": "add_numbers",
                   "input": {"a": 1, "b": 2}}]
OPENAI_CALL = [{"id": "c1", "type": "function",
                "function": {"name": "add_numbers", "arguments": '{"a": 1, "b": 2}'}}]


def _anthropic(catalog: Catalog, **options: Any) -> Any:
    return dispatch_tool_uses(catalog, ANTHROPIC_CALL, **options)


def _openai(catalog: Catalog, **options: Any) -> Any:
    return dispatch_openai_tool_calls(catalog, OPENAI_CALL, **options)


DISPATCHERS: list[Callable[..., Any]] = [_anthropic, _openai]


@pytest.mark.parametrize("dispatch", DISPATCHERS)
def test_every_option_is_taken(catalog: Catalog, dispatch: Callable[..., Any]) -> None:
    replies = dispatch(catalog, wanted=[ToolSpec("later", "Not there yet.")],
                       allow_generation=False, generator=None, timeout=5.0, max_workers=2)
    assert len(replies) == 1
    assert '"sum": 3' in str(replies[0])


@pytest.mark.parametrize("dispatch", DISPATCHERS)
def test_a_misspelled_option_is_a_type_error(catalog: Catalog,
                                             dispatch: Callable[..., Any]) -> None:
    with pytest.raises(TypeError, match="allow_generaton"):
        dispatch(catalog, allow_generaton=True)


def test_a_missing_tool_is_generated_only_when_allowed(catalog: Catalog) -> None:
    call = [{"type": "tool_use", "id": "t1", "name": "word_count", "input": {"text": "a b"}}]
    refused = dispatch_tool_uses(catalog, call)
    assert refused[0]["is_error"] is True
    assert "unknown_tool" in refused[0]["content"]
    generated = dispatch_tool_uses(catalog, call, allow_generation=True,
                                   wanted=[ToolSpec("word_count", "Counts words.")])
    assert generated[0]["is_error"] is False, generated[0]["content"]


def test_a_response_option_is_not_taken_where_there_is_no_response(catalog: Catalog) -> None:
    from dyntools.adapters.smolagents_tools import dispatch_smolagents_call

    assert dispatch_smolagents_call(catalog, "add_numbers", {"a": 1, "b": 2},
                                    timeout=5.0) == {"sum": 3}
    with pytest.raises(TypeError, match="max_workers"):
        dispatch_smolagents_call(catalog, "add_numbers", {"a": 1, "b": 2}, max_workers=2)
