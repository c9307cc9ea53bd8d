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
from typing import Any, Unpack

from dyntools.adapters.core import Dispatch, DispatchOptions
from dyntools.catalog.core import Catalog

__all__ = ["dispatch_openai_agents_call", "tools_for_openai_agents"]


def tools_for_openai_agents(catalog: Catalog,
                            **options: Unpack[DispatchOptions]) -> list[Any]:
    """One `agents.FunctionTool` per catalog and registry tool, then per `wanted` spec
    (`options`: `DispatchOptions`)."""
    from agents import FunctionTool

    dispatch = Dispatch.of(catalog, "openai_agents", options)
    tools = []
    for entry in dispatch.entries():

        async def invoke(context: Any, arguments: str, name: str = entry.name) -> str:
            outcome = await asyncio.to_thread(dispatch.run_arguments, name, arguments)
            return outcome.text

        tools.append(FunctionTool(name=entry.name, description=entry.description,
                                  params_json_schema=entry.params, on_invoke_tool=invoke,
                                  strict_json_schema=False))
    return tools


def dispatch_openai_agents_call(catalog: Catalog, name: str, arguments: str,
                                **options: Unpack[DispatchOptions]) -> str:
    """Run one call (`name`, JSON `arguments`) and return the text the model reads
    (`options`: `DispatchOptions`)."""
    return Dispatch.of(catalog, "openai_agents", options).run_arguments(name, arguments).text
