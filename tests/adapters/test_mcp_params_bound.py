"""Issue 9, findings 4 and 9 through the MCP entry point: a call whose params are too costly
to validate, or nest too deep, is an `invalid_params` error result, answered at once, and the
server keeps serving."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from dyntools.adapters.mcp_server import McpToolServer
from dyntools.catalog.core import Catalog
from dyntools.pipeline.dyntools import Dyntools
from tests.support.validations import count_validations

# A hand-written catalog tool: its schema never went through the gate.
COSTLY = {"type": "object",
          "properties": {"a": {"type": "array",
                               "items": {"type": "number", "multipleOf": 5e-324}}}}


def total(params: dict[str, Any]) -> dict[str, Any]:
    return {"n": len(params.get("a", []))}


def error_body(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error is True
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    body: dict[str, Any] = json.loads(text.text)["error"]
    return body


def test_costly_and_deep_params_are_error_results(tmp_path: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Refused before the validator starts (27 s of held GIL before): counted, not timed."""
    validations = count_validations(monkeypatch)
    with Catalog(Dyntools(tmp_path / "registry"), generate=False) as catalog:
        catalog.add("total", total, params=COSTLY)
        server = McpToolServer(catalog)
        deep: list[Any] = []
        for _ in range(220):  # past ours (200), under the SDK serialiser's own limit
            deep = [deep]

        async def scenario() -> None:
            async with Client(server.server, mode="legacy") as client:
                body = error_body(await client.call_tool("total", {"a": [1e-300] * 450_000}))
                assert body["reason"] == "invalid_params", body
                assert "too large to validate" in body["message"]
                assert validations == []
                body = error_body(await client.call_tool("total", {"a": [1e-300, deep]}))
                assert body["reason"] == "invalid_params" and "deeper than 200" in body["message"]
                done = await client.call_tool("total", {"a": [1e-300] * 10})
                assert done.is_error is False and done.structured_content == {"n": 10}

        anyio.run(scenario)
