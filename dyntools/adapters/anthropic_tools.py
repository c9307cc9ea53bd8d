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

The `anthropic` package is not imported here: blocks are read by attribute or key, so this
works with any SDK version and with plain dicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from dyntools.adapters.results import error_payload, to_json_text
from dyntools.catalog import Catalog
from dyntools.errors import DyntoolsError, UsageError
from dyntools.generators.base import Generator, ToolSpec
from dyntools.log import get_logger

__all__ = ["dispatch_tool_uses", "tool_result", "tool_use_blocks", "tools_for_anthropic"]

TOOL_USE = "tool_use"
TOOL_RESULT = "tool_result"
SAMPLE_CHARS = 500


def tools_for_anthropic(
    catalog: Catalog, *, wanted: Iterable[ToolSpec] = ()
) -> list[dict[str, Any]]:
    """The `tools` parameter: every catalog and registry tool, then `wanted` specs that do
    not exist yet (a model may call those; dispatch generates them when allowed)."""
    tools = [_definition(tool.name, tool.description, tool.params)
             for tool in catalog.list_tools()]
    known = {tool["name"] for tool in tools}
    for spec in wanted:
        if spec.name not in known:
            known.add(spec.name)
            tools.append(_definition(spec.name, spec.description, spec.params))
    return tools


def _definition(name: str, description: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    definition: dict[str, Any] = {"name": name}
    if description:  # optional in the API; an empty one says nothing
        definition["description"] = description
    definition["input_schema"] = (dict(params) if params is not None
                                   else {"type": "object", "properties": {}})
    return definition


def tool_use_blocks(message_or_content_blocks: Any) -> list[Any]:
    """The `tool_use` blocks of a response, or of a list of content blocks."""
    content = _field(message_or_content_blocks, "content", None)
    blocks = content if content is not None else message_or_content_blocks
    if isinstance(blocks, (str, bytes)) or not isinstance(blocks, Iterable):
        raise UsageError("expected a Messages API response or a list of content blocks")
    return [block for block in blocks if _field(block, "type", None) == TOOL_USE]


def dispatch_tool_uses(
    catalog: Catalog,
    message_or_content_blocks: Any,
    *,
    allow_generation: bool = False,
    generator: Generator | None = None,
    wanted: Iterable[ToolSpec] = (),
    timeout: float | None = None,
    max_workers: int = 1,
) -> list[dict[str, Any]]:
    """Run every `tool_use` block and return its `tool_result` block (same order).

    `allow_generation` lets a name that is neither in the catalog nor in the registry be
    generated (with `generator`, else the pipeline's default), using the matching `wanted`
    spec's description, params schema and examples when there is one. `timeout` bounds each
    sandboxed call. `max_workers` > 1 runs the blocks of one response concurrently (hand-written
    tools then run on several threads at once).
    """
    blocks = tool_use_blocks(message_or_content_blocks)
    specs = {spec.name: spec for spec in wanted}

    def one(block: Any) -> dict[str, Any]:
        return _dispatch_one(catalog, block, allow_generation=allow_generation,
                             generator=generator, specs=specs, timeout=timeout)

    if max_workers <= 1 or len(blocks) <= 1:
        return [one(block) for block in blocks]
    with ThreadPoolExecutor(max_workers=min(max_workers, len(blocks)),
                            thread_name_prefix="dyntools-dispatch") as pool:
        return list(pool.map(one, blocks))


def tool_result(tool_use_id: str, value: Mapping[str, Any], *, is_error: bool) -> dict[str, Any]:
    return {
        "type": TOOL_RESULT,
        "tool_use_id": tool_use_id,
        "content": to_json_text(value),
        "is_error": is_error,
    }


def _dispatch_one(
    catalog: Catalog,
    block: Any,
    *,
    allow_generation: bool,
    generator: Generator | None,
    specs: Mapping[str, ToolSpec],
    timeout: float | None,
) -> dict[str, Any]:
    tool_use_id = str(_field(block, "id", ""))
    name = _field(block, "name", None)
    params = _field(block, "input", None)
    log = get_logger("adapter.anthropic", tool=name, tool_use_id=tool_use_id)
    try:
        if not isinstance(name, str):
            raise UsageError("the tool_use block has no tool name")
        if not isinstance(params, Mapping):
            raise UsageError(f"the input for {name!r} must be a JSON object, "
                             f"got {type(params).__name__}", tool=name)
        if allow_generation and catalog.get(name) is None:
            spec = specs.get(name) or _spec_from_call(name, params)
            catalog.resolve(name, description=spec.description, params=spec.params,
                            examples=spec.examples, generator=generator, generate=True)
            log.info("adapter.generated", generator=generator.id if generator else None)
        result = catalog.call(name, dict(params), timeout=timeout)
    except Exception as exc:  # every failure becomes a result the model reads
        payload = error_payload(exc)
        if isinstance(exc, DyntoolsError):
            log.info("adapter.tool_error", station=exc.station, reason=exc.reason)
        else:
            log.error("adapter.internal_error", error=repr(exc), exc_info=True)
        return tool_result(tool_use_id, payload, is_error=True)
    return tool_result(tool_use_id, result, is_error=False)


def _spec_from_call(name: str, params: Mapping[str, Any]) -> ToolSpec:
    """What a model generator learns about a tool nobody declared: its name and one input."""
    sample = to_json_text(dict(params))
    if len(sample) > SAMPLE_CHARS:
        sample = sample[:SAMPLE_CHARS] + "..."
    return ToolSpec(name, f"A tool an agent called as {name} with params such as {sample}.")


def _field(block: Any, key: str, default: Any) -> Any:
    if isinstance(block, Mapping):
        return block.get(key, default)
    return getattr(block, key, default)

