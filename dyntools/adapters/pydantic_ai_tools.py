"""pydantic-ai: a catalog as a toolset (optional extra `pydantic-ai`, which installs
`pydantic-ai-slim`).

    toolset = toolset_for_pydantic_ai(catalog, wanted=wanted, allow_generation=True)
    agent = Agent(model, toolsets=[toolset])
    agent.run_sync("What is 1994 in Roman numerals?")

`DyntoolsToolset` is an `AbstractToolset` whose `get_tools` reads the catalog again at every
step of a run, so a tool created during the run (by `ensure`, another process, or generation
on demand) is offered at the next step: there is no stale cached list. Each tool's
definition carries its PARAMS as `parameters_json_schema`; a call goes through
`dispatch_pydantic_ai_call` (resolved through the catalog, a `wanted` tool generated on demand
only with `allow_generation`, generated tools run in the sandbox on a worker thread). A
failure is pydantic-ai's tool-error shape: `ModelRetry` with the `{"error": {"station",
"reason", "message", "details"}}` JSON, which the model receives as a retry prompt (up to
`max_retries` per tool, pydantic-ai's own limit).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Unpack

from dyntools.adapters.core import Dispatch, DispatchOptions
from dyntools.catalog.core import Catalog

__all__ = ["dispatch_pydantic_ai_call", "toolset_for_pydantic_ai"]


def toolset_for_pydantic_ai(
    catalog: Catalog,
    *,
    max_retries: int = 3,
    toolset_id: str = "dyntools",
    **options: Unpack[DispatchOptions],
) -> Any:
    """A `pydantic_ai` toolset over the catalog (and the `wanted` specs; `options`:
    `DispatchOptions`)."""
    import pydantic_core
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset
    from pydantic_ai.toolsets.abstract import ToolsetTool

    dispatch = Dispatch.of(catalog, "pydantic_ai", options)
    arguments = pydantic_core.SchemaValidator(pydantic_core.core_schema.dict_schema(
        pydantic_core.core_schema.str_schema(), pydantic_core.core_schema.any_schema()))

    class DyntoolsToolset(AbstractToolset[Any]):
        @property
        def id(self) -> str | None:
            return toolset_id

        async def get_tools(self, ctx: Any) -> dict[str, Any]:
            entries = await asyncio.to_thread(dispatch.entries)
            return {entry.name: ToolsetTool(
                toolset=self, max_retries=max_retries, args_validator=arguments,
                tool_def=ToolDefinition(name=entry.name, description=entry.description,
                                        parameters_json_schema=entry.params))
                for entry in entries}

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any,
                            tool: Any) -> Any:
            return await asyncio.to_thread(_call, dispatch, name, tool_args)

    return DyntoolsToolset()


def dispatch_pydantic_ai_call(catalog: Catalog, name: str, params: Mapping[str, Any],
                              **options: Unpack[DispatchOptions]) -> dict[str, Any]:
    """Run one call: the result object, or `ModelRetry` carrying the error JSON (`options`:
    `DispatchOptions`)."""
    return _call(Dispatch.of(catalog, "pydantic_ai", options), name, params)


def _call(dispatch: Dispatch, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    from pydantic_ai import ModelRetry

    outcome = dispatch.run(name, params)
    if outcome.is_error:
        raise ModelRetry(outcome.text)
    return outcome.value
