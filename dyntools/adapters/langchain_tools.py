"""LangChain: a catalog as `StructuredTool`s, and dispatch of an `AIMessage`'s tool calls
(optional extra `langchain`, which installs only `langchain-core`).

    tools = tools_for_langchain(catalog, wanted=wanted, allow_generation=True)
    model = chat_model.bind_tools(tools)
    reply = model.invoke(messages)
    messages += [reply, *dispatch_langchain_tool_calls(catalog, reply, allow_generation=True)]
    # or, the LangChain way: {t.name: t for t in tools}[call["name"]].invoke(call)

Each `StructuredTool` takes the tool's PARAMS as its `args_schema` (a JSON Schema dict) and runs
through the catalog: hand-written tools in this process, generated ones in the sandbox, a
`wanted` tool generated on demand only with `allow_generation`. The result is the tool's JSON
text. A failure is LangChain's tool-error shape: a `ToolException` handled by the tool
(`handle_tool_error=True`), so the model gets a `ToolMessage` with `status="error"` whose
content is the `{"error": {"station", "reason", "message", "details"}}` JSON, and the agent
goes on. `dispatch_langchain_tool_calls` returns the same `ToolMessage`s for an `AIMessage`
(or its `tool_calls`) without going through the tool objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Unpack

from dyntools.adapters.core import Dispatch, DispatchOptions, field
from dyntools.catalog.core import Catalog
from dyntools.errors import UsageError

__all__ = ["dispatch_langchain_tool_calls", "tools_for_langchain"]


def tools_for_langchain(catalog: Catalog, **options: Unpack[DispatchOptions]) -> list[Any]:
    """One `langchain_core.tools.StructuredTool` per catalog and registry tool, then per
    `wanted` spec (`options`: `DispatchOptions`)."""
    from langchain_core.tools import StructuredTool, ToolException

    dispatch = Dispatch.of(catalog, "langchain", options)

    def invoke(name: str, params: dict[str, Any]) -> str:
        outcome = dispatch.run(name, params)
        if outcome.is_error:
            raise ToolException(outcome.text)
        return outcome.text

    return [StructuredTool(name=entry.name, description=entry.description or entry.name,
                           args_schema=entry.params, func=_bound(invoke, entry.name),
                           handle_tool_error=True, handle_validation_error=True)
            for entry in dispatch.entries()]


def _bound(invoke: Any, name: str) -> Any:
    """`invoke` for one tool name; the model's params arrive as keyword arguments (any key,
    including "name", stays a param)."""

    def call(**params: Any) -> str:
        result: str = invoke(name, params)
        return result

    return call


def dispatch_langchain_tool_calls(catalog: Catalog, message_or_tool_calls: Any,
                                  **options: Unpack[DispatchOptions]) -> list[Any]:
    """One `ToolMessage` per tool call of an `AIMessage` (or of its `tool_calls`), in order;
    failures have `status="error"` (`options`: `DispatchOptions`)."""
    from langchain_core.messages import ToolMessage

    dispatch = Dispatch.of(catalog, "langchain", options)
    calls = field(message_or_tool_calls, "tool_calls", message_or_tool_calls)
    if isinstance(calls, (str, bytes, Mapping)) or not isinstance(calls, Iterable):
        raise UsageError("expected an AIMessage or its tool_calls")
    messages = []
    for call in calls:
        name = field(call, "name", None)
        outcome = dispatch.run(name, field(call, "args", None))
        messages.append(ToolMessage(content=outcome.text, tool_call_id=str(field(call, "id", "")),
                                    name=name if isinstance(name, str) else None,
                                    status="error" if outcome.is_error else "success"))
    return messages
