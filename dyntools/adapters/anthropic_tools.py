"""Anthropic tool use: a catalog as the Messages API `tools` list, and `tool_use` dispatch.

    tools = tools_for_anthropic(catalog)
    response = client.messages.create(model=..., max_tokens=..., tools=tools, messages=messages)
    results = dispatch_tool_uses(catalog, response, allow_generation=True)
    messages += [{"role": "assistant", "content": response.content},
                 {"role": "user", "content": results}]

`dispatch_tool_uses` takes a response (an SDK `Message`, or a dict with `content`) or its
content blocks (SDK objects or dicts), resolves each `tool_use` name through the catalog
(hand-written tools, then the registry, then, only when `allow_generation` is set, a newly
generated tool), runs it (generated tools in the sandbox) and returns one `tool_result`
block per `tool_use`, in order. A result is the tool's JSON object as text; a failure at
any station is an `is_error` result whose text is `{"error": {"station", "reason",
"message", "details"}}`, which the model can read and act on. Nothing here raises for a
tool's failure, a missing tool or malformed input: the agent loop keeps going.

Tool search (`defer_loading=True`): with hundreds of tools, sending every definition costs
tokens on every turn. Then each catalog tool is sent with `"defer_loading": true` (the API
loads it only when a search returns a `tool_reference` to it) next to one search tool:
- `tool_search="dyntools"` (the default): a tool named `find_tools` that this dispatcher
  answers with the catalog's own search (the same FTS5 BM25 as `dyntools search` and the MCP
  server), as a `tool_result` whose content is `tool_reference` blocks;
- `tool_search="bm25"` or `"regex"`: the API's server-side tool search tool
  (`tool_search_tool_bm25_20251119` / `tool_search_tool_regex_20251119`), which the API runs
  itself; its `server_tool_use` and `tool_search_tool_result` blocks need nothing from here.
`wanted` specs that do not exist yet stay loaded (there are few, and search cannot find
them). The installed SDK's types are checked for these fields before any is used.

Code mode (`run_code=True` on both functions; off by default, so a program's tool list never
grows by itself): the tools also hold `run_code(code, inputs)` and `resume_run(run_id)`, and
dispatch answers them with a gated script whose `tools.NAME(...)` calls reach exactly the
catalog's tools (dyntools/adapters/code_tools.py). They stay loaded under `defer_loading`,
and shadow a catalog tool of the same name.

The `anthropic` package is not imported for dispatch: blocks are read by attribute or key, so
this works with any SDK version and with plain dicts. OpenAI-shaped input (a chat completion,
its `tool_calls`, a Responses `function_call`) is refused with a `UsageError` naming
`dispatch_openai_tool_calls`, rather than silently answering nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Unpack

from dyntools.adapters.code_tools import CODE_TOOLS, code_tool_definitions, run_code_outcome
from dyntools.adapters.core import Dispatch, ResponseOptions, field, in_order, tool_entries
from dyntools.adapters.results import error_payload, to_json_text
from dyntools.base.log import get_logger
from dyntools.catalog.core import Catalog
from dyntools.errors import UsageError
from dyntools.generators.base import ToolSpec

__all__ = ["dispatch_tool_uses", "tool_result", "tool_use_blocks", "tools_for_anthropic"]

TOOL_USE = "tool_use"
TOOL_RESULT = "tool_result"
FIND_TOOLS = "find_tools"
TOOL_SEARCH_CHOICES = ("dyntools", "bm25", "regex")
FIND_LIMIT = 5
MAX_FIND_LIMIT = 20
# The API's server-side search tools: (type, name) as the installed SDK's types spell them.
_SERVER_SEARCH = {
    "bm25": ("ToolSearchToolBm25_20251119Param", "tool_search_tool_bm25_20251119",
             "tool_search_tool_bm25"),
    "regex": ("ToolSearchToolRegex20251119Param", "tool_search_tool_regex_20251119",
              "tool_search_tool_regex"),
}
FIND_TOOLS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": 1000,
                  "description": "What the tool should do, in plain words."},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_FIND_LIMIT},
    },
    "required": ["query"],
    "additionalProperties": False,
}
# Shapes of other APIs' tool calls: refused with a pointer instead of answered with nothing.
_OPENAI_FIELDS = ("choices", "tool_calls")
_OPENAI_TYPES = ("function", "function_call")


def tools_for_anthropic(
    catalog: Catalog,
    *,
    wanted: Iterable[ToolSpec] = (),
    defer_loading: bool = False,
    tool_search: str = "dyntools",
    run_code: bool = False,
) -> list[dict[str, Any]]:
    """The `tools` parameter: every catalog and registry tool, then `wanted` specs that do
    not exist yet (a model may call those; dispatch generates them when allowed), then, with
    `run_code`, `run_code` and `resume_run` (dispatch them with `run_code=True` too).

    With `defer_loading`, catalog tools are marked for the API's tool search and a search
    tool is added first (see the module docstring)."""
    if tool_search not in TOOL_SEARCH_CHOICES:
        raise UsageError(f"tool_search must be one of {', '.join(TOOL_SEARCH_CHOICES)}, "
                         f"not {tool_search!r}")
    wanted = tuple(wanted)
    exclude: tuple[str, ...] = ((FIND_TOOLS,) if defer_loading and tool_search == "dyntools"
                                else ())
    if run_code:
        exclude += CODE_TOOLS
    for name in exclude:
        if catalog.get(name) is not None:
            get_logger("adapter.anthropic").warning("anthropic.tool_shadowed", tool=name)
    existing = {tool.name for tool in catalog.list_tools()}
    tools = []
    for entry in tool_entries(catalog, wanted, exclude=exclude):
        definition = _definition(entry.name, entry.description, entry.params)
        if defer_loading and entry.name in existing:
            definition["defer_loading"] = True
        tools.append(definition)
    if run_code:
        tools += [_definition(name, description, schema)
                  for name, description, schema in code_tool_definitions()]
    if not defer_loading:
        return tools
    _require_sdk_support(tool_search)
    if tool_search == "dyntools":
        search: dict[str, Any] = _definition(
            FIND_TOOLS, "Search the available tools by what they do (name, description and "
            "parameters); the matching tools become callable.", FIND_TOOLS_SCHEMA)
    else:
        _, kind, name = _SERVER_SEARCH[tool_search]
        search = {"type": kind, "name": name}
    return [search, *tools]


def _require_sdk_support(tool_search: str) -> None:
    """The installed anthropic SDK must know `defer_loading` (and the server search tool)."""
    try:
        from anthropic import types
    except ImportError as exc:
        raise UsageError("defer_loading needs the anthropic package") from exc
    hints = getattr(types.ToolParam, "__annotations__", {})
    if "defer_loading" not in hints:
        raise UsageError("the installed anthropic SDK has no defer_loading on tools; "
                         "upgrade anthropic or pass defer_loading=False")
    if tool_search in _SERVER_SEARCH and not hasattr(types, _SERVER_SEARCH[tool_search][0]):
        raise UsageError(f"the installed anthropic SDK has no {tool_search} tool search tool")
    if tool_search == "dyntools" and not hasattr(types, "ToolReferenceBlockParam"):
        raise UsageError("the installed anthropic SDK has no tool_reference blocks")


def _definition(name: str, description: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    definition: dict[str, Any] = {"name": name}
    if description:  # optional in the API; an empty one says nothing
        definition["description"] = description
    definition["input_schema"] = (dict(params) if params is not None
                                   else {"type": "object", "properties": {}})
    return definition


def tool_use_blocks(message_or_content_blocks: Any) -> list[Any]:
    """The `tool_use` blocks of a response, or of a list of content blocks.

    Server-side blocks (`server_tool_use`, `tool_search_tool_result`, ...) are the API's own
    and are skipped; OpenAI-shaped input is a `UsageError`."""
    _refuse_openai_shape(message_or_content_blocks)
    content = field(message_or_content_blocks, "content", None)
    blocks = content if content is not None else message_or_content_blocks
    if isinstance(blocks, (str, bytes)) or not isinstance(blocks, Iterable):
        raise UsageError("expected a Messages API response or a list of content blocks")
    blocks = list(blocks)
    for block in blocks:
        _refuse_openai_shape(block)
    return [block for block in blocks if field(block, "type", None) == TOOL_USE]


def _refuse_openai_shape(value: Any) -> None:
    if isinstance(value, (str, bytes)):
        return
    looks_openai = (any(field(value, key, None) is not None for key in _OPENAI_FIELDS)
                    or field(value, "type", None) in _OPENAI_TYPES
                    or (field(value, "object", None) == "response"
                        and field(value, "output", None) is not None))
    if looks_openai:
        raise UsageError("these look like OpenAI tool calls (a chat completion, tool_calls or "
                         "function_call items), not Anthropic tool_use blocks: use "
                         "dyntools.adapters.openai_tools.dispatch_openai_tool_calls")


def dispatch_tool_uses(catalog: Catalog, message_or_content_blocks: Any,
                       **options: Unpack[ResponseOptions]) -> list[dict[str, Any]]:
    """Run every `tool_use` block and return its `tool_result` block (same order).

    `allow_generation` lets a name that is neither in the catalog nor in the registry be
    generated (with `generator`, else the pipeline's default), using the matching `wanted`
    spec's description, params schema and examples when there is one. `timeout` bounds each
    sandboxed call. `max_workers` > 1 runs the blocks of one response concurrently (hand-written
    tools then run on several threads at once). A `find_tools` block (tool search with
    `defer_loading`) is answered with `tool_reference` blocks from the catalog's search.
    With `run_code` (as `tools_for_anthropic` was given it), `run_code` and `resume_run`
    blocks run scripts over the catalog's tools; without it they are tools like any other
    (unknown unless the catalog has them).
    """
    blocks = tool_use_blocks(message_or_content_blocks)
    dispatch = Dispatch.of(catalog, "anthropic", options, ResponseOptions)

    def one(block: Any) -> dict[str, Any]:
        return _dispatch_one(dispatch, block)

    return in_order(one, blocks, dispatch.max_workers)


def tool_result(tool_use_id: str, value: Mapping[str, Any], *, is_error: bool) -> dict[str, Any]:
    return {
        "type": TOOL_RESULT,
        "tool_use_id": tool_use_id,
        "content": to_json_text(value),
        "is_error": is_error,
    }


def _dispatch_one(dispatch: Dispatch, block: Any) -> dict[str, Any]:
    catalog = dispatch.catalog
    tool_use_id = str(field(block, "id", ""))
    name = field(block, "name", None)
    params = field(block, "input", None)
    if name == FIND_TOOLS and catalog.get(FIND_TOOLS) is None:
        return _find_tools(catalog, tool_use_id, params)
    if dispatch.run_code and name in CODE_TOOLS:
        outcome = run_code_outcome(catalog, name, params, "anthropic")
    else:
        outcome = dispatch.run(name, params)
    return tool_result(tool_use_id, outcome.value, is_error=outcome.is_error)


def _find_tools(catalog: Catalog, tool_use_id: str, params: Any) -> dict[str, Any]:
    """The catalog's search as `tool_reference` blocks (the API then loads those tools)."""
    try:
        if not isinstance(params, Mapping) or not isinstance(params.get("query"), str):
            raise UsageError('find_tools takes {"query": "..."}', tool=FIND_TOOLS)
        limit = params.get("limit", FIND_LIMIT)
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise UsageError("find_tools: limit must be an integer", tool=FIND_TOOLS)
        hits = catalog.search(params["query"][:1000],
                              limit=max(1, min(limit, MAX_FIND_LIMIT)))
    except Exception as exc:  # a failing search is a result the model reads
        return tool_result(tool_use_id, error_payload(exc), is_error=True)
    if not hits:
        return {"type": TOOL_RESULT, "tool_use_id": tool_use_id, "is_error": False,
                "content": "no tool matches; try other words"}
    return {"type": TOOL_RESULT, "tool_use_id": tool_use_id, "is_error": False,
            "content": [{"type": "tool_reference", "tool_name": hit.name} for hit in hits]}

