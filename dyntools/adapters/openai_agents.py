"""The OpenAI Agents SDK: a catalog as `FunctionTool`s (optional extra `openai-agents`).

    from agents import Agent, Runner
    tools = tools_for_openai_agents(catalog, wanted=wanted, allow_generation=True)
    agent = Agent(name="assistant", instructions="...", tools=tools)
    Runner.run_sync(agent, "What is 1994 in Roman numerals?")

Each `FunctionTool` carries the tool's PARAMS as `params_json_schema` (`strict_json_schema`
off: PARAMS need not meet strict mode's rules) and invokes `dispatch_openai_agents_call`,
which parses the model's JSON arguments, resolves the name through the catalog (generating a
`wanted` tool on demand only with `allow_generation`), runs it (generated tools in the
sandbox, on a worker thread so the agent's event loop keeps running) and returns the JSON
result. A failure is the SDK's tool-error shape: a string sent back to the model (here the
`{"error": {"station", "reason", "message", "details"}}` JSON), never an exception that would
end the run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from dyntools.adapters.core import Outcome, parse_arguments, run_tool, tool_entries
from dyntools.adapters.results import error_payload
from dyntools.catalog.core import Catalog
from dyntools.errors import UsageError
from dyntools.generators.base import Generator, ToolSpec

__all__ = ["dispatch_openai_agents_call", "tools_for_openai_agents"]


def tools_for_openai_agents(
    catalog: Catalog,
    *,
    wanted: Iterable[ToolSpec] = (),
    allow_generation: bool = False,
    generator: Generator | None = None,
    timeout: float | None = None,
) -> list[Any]:
    """One `agents.FunctionTool` per catalog and registry tool, then per `wanted` spec."""
    from agents import FunctionTool

    wanted = tuple(wanted)
    tools = []
    for entry in tool_entries(catalog, wanted):

        async def invoke(context: Any, arguments: str, name: str = entry.name) -> str:
            return await asyncio.to_thread(
                dispatch_openai_agents_call, catalog, name, arguments,
                allow_generation=allow_generation, generator=generator, wanted=wanted,
                timeout=timeout)

        tools.append(FunctionTool(name=entry.name, description=entry.description,
                                  params_json_schema=entry.params, on_invoke_tool=invoke,
                                  strict_json_schema=False))
    return tools


def dispatch_openai_agents_call(
    catalog: Catalog,
    name: str,
    arguments: str,
    *,
    allow_generation: bool = False,
    generator: Generator | None = None,
    wanted: Iterable[ToolSpec] = (),
    timeout: float | None = None,
) -> str:
    """Run one call (`name`, JSON `arguments`) and return the text the model reads."""
    try:
        params: Any = parse_arguments(arguments, name)
    except UsageError as exc:
        return Outcome(error_payload(exc), True).text
    specs = {spec.name: spec for spec in wanted}
    return run_tool(catalog, name, params, allow_generation=allow_generation,
                    generator=generator, specs=specs, timeout=timeout,
                    adapter="openai_agents").text
