"""The pydantic-ai adapter with pydantic-ai's real Agent and toolset machinery, driven by its
own FunctionModel (no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .frameworks import load_example, require

require("pydantic_ai", "pydantic-ai")

from pydantic_ai import ModelRetry  # noqa: E402
from pydantic_ai.messages import ToolReturnPart  # noqa: E402

from dyntools.adapters.pydantic_ai_tools import dispatch_pydantic_ai_call  # noqa: E402
from dyntools.catalog.core import Catalog  # noqa: E402

EXAMPLE = load_example("pydantic_ai_agent_loop")


def parts(model: Any, kind: type) -> list[Any]:
    messages = model.seen[-1][0]
    return [part for message in messages for part in getattr(message, "parts", [])
            if isinstance(part, kind)]


def test_a_run_generates_calls_reads_errors_and_sees_new_tools(tmp_path: Path) -> None:
    model = EXAMPLE.scripted_model(
        [("roman_numeral", {"number": 1994}), ("multiply", {"a": 6, "b": 7})],
        [("multiply", {"a": "six", "b": 1})],
        "done")
    with EXAMPLE.build_catalog(str(tmp_path / "registry")) as catalog:
        assert EXAMPLE.run_agent(model, catalog, "go") == "done"

        @catalog.tool
        def later(x: int) -> int:
            """Added after the run."""
            return x

        again = EXAMPLE.scripted_model([("later", {"x": 5})], "ok")
        assert EXAMPLE.run_agent(again, catalog, "go") == "ok"
        assert "later" in again.seen[0][1]
    returned = parts(model, ToolReturnPart)
    assert [p.content for p in returned if p.retry is None] == [
        {"roman": "MCMXCIV", "number": 1994}, {"result": 42.0}]
    # ModelRetry: the call's own return part, marked as a retry, carrying the error JSON
    [retry] = [p for p in returned if p.retry is not None]
    assert json.loads(retry.content)["error"]["reason"] == "invalid_params"
    # the tools offered grew within the first run's catalog only when generated
    assert model.seen[0][1] == ["multiply", "roman_numeral"]


def test_dispatch_raises_model_retry(catalog: Catalog) -> None:
    assert dispatch_pydantic_ai_call(catalog, "add_numbers", {"a": 1, "b": 1}) == {"sum": 2}
    with pytest.raises(ModelRetry) as caught:
        dispatch_pydantic_ai_call(catalog, "roman_numeral", {"number": 3})
    assert json.loads(caught.value.message)["error"]["reason"] == "unknown_tool"


def test_the_offline_example_runs(tmp_path: Path, capsys: Any) -> None:
    assert EXAMPLE.main(["--offline", "--registry", str(tmp_path / "registry")]) == 0
    assert capsys.readouterr().out.strip() == "1994 is MCMXCIV, and 6 x 7 = 42."


def test_the_offline_answer_is_read_from_the_tool_results(tmp_path: Path) -> None:
    """A failed tool changes the scripted model's answer: it is written from the results."""
    model = EXAMPLE.scripted_model(
        [("roman_numeral", {"number": 1994}), ("multiply", {"a": "six", "b": 7})],
        EXAMPLE.answer_from)
    with EXAMPLE.build_catalog(str(tmp_path / "registry")) as catalog:
        answer = EXAMPLE.run_agent(model, catalog, "go")
    assert answer.startswith("1994 is MCMXCIV, and multiply failed (")
