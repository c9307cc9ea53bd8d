"""What every framework adapter shares: the tools to list, and one call resolved and run.

    entries = tool_entries(catalog, wanted)          # [ToolEntry(name, description, params)]
    outcome = run_tool(catalog, name, params, allow_generation=True, specs=..., timeout=...)
    outcome.value, outcome.is_error                  # the result, or {"error": {...}}

Each adapter (Anthropic, OpenAI, OpenAI Agents, LangChain, smolagents, pydantic-ai) is one
function that lists `tool_entries` in its framework's shape and one that dispatches its calls
through `run_tool`, so they all resolve names the same way (hand-written, then the registry,
then, only when the caller allows it, a newly generated tool), run generated tools in the
sandbox, and turn every failure into the same `{"error": {"station", "reason", "message",
"details"}}` value, never an exception through the framework's loop.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar, cast

from dyntools.adapters.results import error_payload, to_json_text
from dyntools.base.log import get_logger
from dyntools.catalog.core import Catalog
from dyntools.errors import DyntoolsError, UsageError
from dyntools.generators.base import Generator, ToolSpec

Item = TypeVar("Item")
Result = TypeVar("Result")

SAMPLE_CHARS = 500
# A model's arguments string (OpenAI-style JSON text) is parsed in the host: bound it.
MAX_ARGUMENT_CHARS = 1 << 20
EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """A tool as every framework needs it: name, description, params JSON Schema."""

    name: str
    description: str
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A call's result (a JSON object) or its error payload, and which one it is."""

    value: dict[str, Any]
    is_error: bool

    @property
    def text(self) -> str:
        """The value as JSON text: what goes into a framework's tool message."""
        return to_json_text(self.value)


class DispatchOptions(TypedDict, total=False):
    """The keyword arguments every adapter's list and dispatch functions take about calls.

    wanted: specs of tools that may not exist yet (listed after the catalog's; a call to
        one is generated from its description, params and examples). Default ().
    allow_generation: a name neither the catalog nor the registry knows may be generated
        (with `generator`, else the pipeline's default). Default False.
    generator: where generated code comes from. Default None.
    timeout: seconds per sandboxed call. Default None (the sandbox's limit).
    """

    wanted: Iterable[ToolSpec]
    allow_generation: bool
    generator: Generator | None
    timeout: float | None


class ResponseOptions(DispatchOptions, total=False):
    """`DispatchOptions`, and how the calls of one model response run (Anthropic, OpenAI).

    max_workers: > 1 runs one response's calls concurrently (hand-written tools then run on
        several threads at once). Default 1.
    run_code: answer `run_code` and `resume_run` with scripts over the catalog's tools (as
        the list function was given it; dyntools/adapters/code_tools.py). Default False.
    """

    max_workers: int
    run_code: bool


@dataclass(frozen=True)
class Dispatch:
    """One adapter's way of running calls: its catalog and `DispatchOptions`, bound once so
    every call of a framework's tools resolves and runs the same way."""

    catalog: Catalog
    adapter: str
    wanted: tuple[ToolSpec, ...] = ()
    allow_generation: bool = False
    generator: Generator | None = None
    timeout: float | None = None
    max_workers: int = 1
    run_code: bool = False

    @classmethod
    def of(cls, catalog: Catalog, adapter: str, options: DispatchOptions | ResponseOptions,
           taken: Any = DispatchOptions) -> Dispatch:
        """`options` as an adapter function received them (declared as the TypedDict
        `taken`); a key that is not one is a TypeError, as for any unexpected keyword
        argument."""
        unknown = sorted(set(options) - set(taken.__annotations__))
        if unknown:
            raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")
        response = cast("ResponseOptions", options)
        return cls(catalog, adapter, tuple(options.get("wanted", ())),
                   options.get("allow_generation", False), options.get("generator"),
                   options.get("timeout"), response.get("max_workers", 1),
                   response.get("run_code", False))

    @functools.cached_property
    def specs(self) -> dict[str, ToolSpec]:
        return {spec.name: spec for spec in self.wanted}

    def entries(self, *, exclude: Iterable[str] = ()) -> list[ToolEntry]:
        """The tools to list: the catalog's and the registry's, then the wanted specs."""
        return tool_entries(self.catalog, self.wanted, exclude=exclude)

    def run(self, name: Any, params: Any) -> Outcome:
        """One call, as `run_tool` runs it (never raises for the tool's failure)."""
        return run_tool(self.catalog, name, params, allow_generation=self.allow_generation,
                        generator=self.generator, specs=self.specs, timeout=self.timeout,
                        adapter=self.adapter)

    def run_arguments(self, name: Any, arguments: Any) -> Outcome:
        """One call whose params are a model's JSON arguments text: text that is not one
        JSON object is the call's error, never an exception."""
        try:
            params = parse_arguments(arguments, name if isinstance(name, str) else None)
        except UsageError as exc:
            return Outcome(error_payload(exc), True)
        return self.run(name, params)


def tool_entries(catalog: Catalog, wanted: Iterable[ToolSpec] = (),
                 *, exclude: Iterable[str] = ()) -> list[ToolEntry]:
    """Every catalog and registry tool, then the `wanted` specs that do not exist yet."""
    skip = set(exclude)
    # Deep copies: a framework may edit a schema in place (strict-mode rewrites, titles);
    # the catalog's and the registry's cached PARAMS must never change under it.
    entries = [ToolEntry(tool.name, tool.description, copy.deepcopy(dict(tool.params)))
               for tool in catalog.list_tools() if tool.name not in skip]
    known = {entry.name for entry in entries} | skip
    for spec in wanted:
        if spec.name not in known:
            known.add(spec.name)
            entries.append(ToolEntry(spec.name, spec.description,
                                     copy.deepcopy(dict(spec.params))
                                     if spec.params is not None else dict(EMPTY_SCHEMA)))
    return entries


def in_order(one: Callable[[Item], Result], items: Sequence[Item], max_workers: int,
             ) -> list[Result]:
    """`one` of each item, in the items' order; with `max_workers` > 1, run concurrently (a
    response's calls: hand-written tools then run on several threads at once)."""
    if max_workers <= 1 or len(items) <= 1:
        return [one(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(max_workers, len(items)),
                            thread_name_prefix="dyntools-dispatch") as pool:
        return list(pool.map(one, items))


def run_tool(
    catalog: Catalog,
    name: Any,
    params: Any,
    *,
    allow_generation: bool = False,
    generator: Generator | None = None,
    specs: Mapping[str, ToolSpec] | None = None,
    timeout: float | None = None,
    adapter: str = "adapter",
) -> Outcome:
    """Resolve `name` (generating it only when allowed), call it with `params`; never raises
    for a tool's failure, a missing tool or malformed input."""
    log = get_logger(f"adapter.{adapter}", tool=name if isinstance(name, str) else None)
    try:
        if not isinstance(name, str):
            raise UsageError("the tool call has no tool name")
        if not isinstance(params, Mapping):
            raise UsageError(f"the input for {name!r} must be a JSON object, "
                             f"got {type(params).__name__}", tool=name)
        if allow_generation and catalog.get(name) is None:
            spec = (specs or {}).get(name) or spec_from_call(name, params)
            catalog.resolve(name, description=spec.description, params=spec.params,
                            examples=spec.examples, generator=generator, generate=True)
            log.info("adapter.generated", generator=generator.id if generator else None)
        return Outcome(catalog.call(name, dict(params), timeout=timeout), False)
    except Exception as exc:  # every failure becomes a value the model reads
        if isinstance(exc, DyntoolsError):
            log.info("adapter.tool_error", station=exc.station, reason=exc.reason)
        else:
            log.error("adapter.internal_error", error=repr(exc), exc_info=True)
        return Outcome(error_payload(exc), True)


def parse_arguments(text: Any, name: str | None = None) -> dict[str, Any]:
    """A model's JSON arguments string (or an already-parsed object) as a dict; UsageError if
    it is not one JSON object (bounded in size, nesting errors included)."""
    if isinstance(text, Mapping):
        return dict(text)
    if text is None or text == "":
        return {}
    if not isinstance(text, str):
        raise UsageError(f"tool arguments must be JSON text, got {type(text).__name__}",
                         tool=name)
    if len(text) > MAX_ARGUMENT_CHARS:
        raise UsageError(f"tool arguments are {len(text)} characters; at most "
                         f"{MAX_ARGUMENT_CHARS}", tool=name)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"tool arguments are not valid JSON: {exc}", tool=name) from None
    if not isinstance(value, dict):
        raise UsageError(f"tool arguments must be a JSON object, got {type(value).__name__}",
                         tool=name)
    return value


def spec_from_call(name: str, params: Mapping[str, Any]) -> ToolSpec:
    """What a model generator learns about a tool nobody declared: its name and one input."""
    sample = to_json_text(dict(params))
    if len(sample) > SAMPLE_CHARS:
        sample = sample[:SAMPLE_CHARS] + "..."
    return ToolSpec(name, f"A tool an agent called as {name} with params such as {sample}.")


def field(block: Any, key: str, default: Any = None) -> Any:
    """A field of an SDK object or of a dict, read the same way."""
    if isinstance(block, Mapping):
        return block.get(key, default)
    return getattr(block, key, default)
