"""OpenAI function calling: a catalog as `tools`, and dispatch of the model's tool calls.

    tools = tools_for_openai(catalog)                       # Chat Completions
    completion = client.chat.completions.create(model=..., messages=messages, tools=tools)
    message = completion.choices[0].message
    messages.append(message)
    messages += dispatch_openai_tool_calls(catalog, completion, allow_generation=True)

    tools = tools_for_openai(catalog, api="responses")      # Responses
    response = client.responses.create(model=..., input=items, tools=tools)
    items += response.output
    items += dispatch_openai_tool_calls(catalog, response)

`dispatch_openai_tool_calls` takes a chat completion, its message, its `tool_calls`, a
Responses `Response` or its `output` items (SDK objects or dicts) and returns, in order, one
`{"role": "tool", "tool_call_id", "content"}` message per chat tool call, or one
`{"type": "function_call_output", "call_id", "output"}` item per Responses function call.
The content is the tool's JSON result, or `{"error": {"station", "reason", "message",
"details"}}` (OpenAI has no error flag on tool messages: the text says it). Arguments arrive
as JSON text and are parsed here, bounded (1 MiB, nesting errors caught); malformed
arguments, a missing tool, a gate rejection or a timeout are all results, never exceptions.
Anthropic-shaped input is a `UsageError` pointing to `dispatch_tool_uses`.

Code mode (`run_code=True` on both functions; off by default): the tools also hold
`run_code(code, inputs)` and `resume_run(run_id)`, answered with a gated script whose
`tools.NAME(...)` calls reach exactly the catalog's tools (dyntools/adapters/code_tools.py).

The `openai` package is not imported: calls are read by attribute or key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Unpack

from dyntools.adapters.code_tools import CODE_TOOLS, code_tool_definitions, run_code_outcome
from dyntools.adapters.core import (
    Dispatch,
    Outcome,
    ResponseOptions,
    field,
    in_order,
    parse_arguments,
    tool_entries,
)
from dyntools.adapters.results import error_payload
from dyntools.catalog.core import Catalog
from dyntools.errors import UsageError
from dyntools.generators.base import ToolSpec

__all__ = ["dispatch_openai_tool_calls", "tools_for_openai"]

CHAT, RESPONSES = "chat", "responses"


def tools_for_openai(
    catalog: Catalog,
    *,
    api: str = CHAT,
    wanted: Iterable[ToolSpec] = (),
    run_code: bool = False,
) -> list[dict[str, Any]]:
    """The `tools` parameter for Chat Completions (`api="chat"`) or Responses
    (`api="responses"`): every catalog and registry tool, then the `wanted` specs that do not
    exist yet, then with `run_code` the code tools. Schemas are the tools' PARAMS as they are
    (`strict` is off: PARAMS need not meet strict mode's rules)."""
    if api not in (CHAT, RESPONSES):
        raise UsageError(f"api must be {CHAT!r} or {RESPONSES!r}, not {api!r}")
    tools: list[dict[str, Any]] = []
    entries = [(entry.name, entry.description, entry.params)
               for entry in tool_entries(catalog, wanted,
                                         exclude=CODE_TOOLS if run_code else ())]
    if run_code:
        entries += code_tool_definitions()
    for name, description, params in entries:
        if api == CHAT:
            function: dict[str, Any] = {"name": name, "parameters": params}
            if description:
                function["description"] = description
            tools.append({"type": "function", "function": function})
        else:
            tools.append({"type": "function", "name": name, "description": description,
                          "parameters": params, "strict": False})
    return tools


def dispatch_openai_tool_calls(catalog: Catalog, response_or_calls: Any,
                               **options: Unpack[ResponseOptions]) -> list[dict[str, Any]]:
    """Run every tool call and return its tool message or `function_call_output` (in order).

    `allow_generation` lets a name that is neither in the catalog nor in the registry be
    generated (with `generator`, else the pipeline's default), from the matching `wanted`
    spec when there is one. `timeout` bounds each sandboxed call; `max_workers` > 1 runs one
    response's calls concurrently. With `run_code` (as `tools_for_openai` was given it),
    `run_code` and `resume_run` calls run scripts over the catalog's tools."""
    calls = openai_tool_calls(response_or_calls)
    dispatch = Dispatch.of(catalog, "openai", options, ResponseOptions)

    def one(call: tuple[str, Any]) -> dict[str, Any]:
        kind, item = call
        if kind == CHAT:
            function = field(item, "function", None)
            name = field(function, "name", None)
            raw = field(function, "arguments", None)
            call_id = str(field(item, "id", ""))
        else:
            name = field(item, "name", None)
            raw = field(item, "arguments", None)
            call_id = str(field(item, "call_id", ""))
        try:
            params: Any = parse_arguments(raw, name if isinstance(name, str) else None)
        except UsageError as exc:
            outcome = Outcome(error_payload(exc), True)
        else:
            outcome = (run_code_outcome(catalog, str(name), params, "openai")
                       if dispatch.run_code and name in CODE_TOOLS
                       else dispatch.run(name, params))
        return _reply(kind, call_id, outcome)

    return in_order(one, calls, dispatch.max_workers)


def _reply(kind: str, call_id: str, outcome: Outcome) -> dict[str, Any]:
    if kind == CHAT:
        return {"role": "tool", "tool_call_id": call_id, "content": outcome.text}
    return {"type": "function_call_output", "call_id": call_id, "output": outcome.text}


def openai_tool_calls(value: Any) -> list[tuple[str, Any]]:
    """`(api, call)` for each function call in a completion, a message, a Response, or a
    list of tool calls or output items."""
    if isinstance(value, (str, bytes)) or value is None:
        raise UsageError("expected a chat completion, a message, tool_calls, a Response or "
                         "its output items")
    choices = field(value, "choices", None)
    if choices is not None:
        if not choices:
            return []
        value = field(choices[0], "message", None)
    tool_calls = field(value, "tool_calls", None)
    if tool_calls is not None or (field(value, "role", None) == "assistant"):
        return [(CHAT, call) for call in (tool_calls or [])
                if field(call, "type", "function") == "function"]
    output = field(value, "output", None)
    items = output if isinstance(output, list) else value
    if isinstance(items, Mapping) or not isinstance(items, Iterable):
        raise UsageError("expected a chat completion, a message, tool_calls, a Response or "
                         "its output items")
    found: list[tuple[str, Any]] = []
    for item in items:
        kind = field(item, "type", None)
        if kind == "tool_use":
            raise UsageError("these are Anthropic tool_use blocks: use "
                             "dyntools.adapters.dispatch_tool_uses")
        if kind == "function_call":
            found.append((RESPONSES, item))
        elif kind == "function" or field(item, "function", None) is not None:
            found.append((CHAT, item))
    return found
