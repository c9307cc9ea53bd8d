"""The catalog fall-through: hand-written tools first, then the registry, then generation.

    catalog = Catalog(Dyntools("generated_tools"))

    @catalog.tool                       # bare: the schema comes from the annotations
    def multiply(a: float, b: float) -> float:
        "Multiplies two numbers."
        return a * b                    # a non-object result is returned as {"result": ...}

    @catalog.tool(params={"type": "object", "properties": {"a": {"type": "number"},
                  "b": {"type": "number"}}, "required": ["a", "b"]})
    def add_numbers(params):            # one params dict, with an explicit schema
        "Adds two numbers."
        return {"sum": params["a"] + params["b"]}

    catalog.resolve("add_numbers")      # the hand-written tool; nothing is generated
    catalog.resolve("slugify_text")     # the registry's current version, else generated once
    catalog.call("slugify_text", {"text": "Hello World"})
    catalog.list_tools()                # Tool values: name, description, params, origin, version

A hand-written tool is the operator's own code, so it runs in this process; a generated one
always runs in the sandbox. Both are described by the same `Tool` value and called the same
way: params are checked against the tool's schema first (`InvalidParams`), the result is a
JSON object (lists, not tuples: a hand-written result takes a JSON round trip), and a tool
that raises ends in `ToolRuntimeError`.

`subscribe(listener)` calls `listener(name)` whenever the tool visible under `name` changes:
added to the catalog, a new current version, a rollback, a quarantine, a watch event. Adapters
use it to tell their clients that the tool list changed.
"""

from __future__ import annotations

import inspect
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from dyntools.base.closing import Closing, OnDemand
from dyntools.catalog.search import SearchHit, ToolIndex, params_compatible
from dyntools.catalog.signature import CallShape, call_shape
from dyntools.errors import BadResult, InvalidParams, ToolRuntimeError, UnknownTool, UsageError
from dyntools.generators.base import Generator, ToolSpec
from dyntools.pipeline.dyntools import Dyntools
from dyntools.pipeline.ensure import EnsureResult
from dyntools.pipeline.events import StationListener
from dyntools.pipeline.toolmeta import (
    ALIAS,
    CATALOG,
    EMPTY_PARAMS,
    REGISTRY,
    Tool,
    params_check,
)
from dyntools.registry.records import require_valid_name

ToolFunction = Callable[..., Any]
F = TypeVar("F", bound=ToolFunction)
ChangeListener = Callable[[str], None]
# `similar`: the score (0..1) above which an existing tool is taken to do the same job.
SIMILAR_THRESHOLD = 0.6


@dataclass(frozen=True, slots=True)
class _HandWritten:
    tool: Tool
    func: ToolFunction
    check: Callable[[Any], None]
    shape: CallShape


class Catalog(Closing):
    """Resolve names from hand-written tools, then the registry, then generation.

    `generate=False` makes `resolve` stop at the registry (a miss is `UnknownTool`).
    """

    def __init__(self, dyntools: Dyntools | None = None, *, generate: bool = True) -> None:
        self.dyntools = dyntools if dyntools is not None else Dyntools()
        self.generate = generate
        self._lock = threading.Lock()
        self._tools: dict[str, _HandWritten] = {}
        self._listeners: list[ChangeListener] = []
        self._index: OnDemand[ToolIndex] = OnDemand(ToolIndex)
        self._visible: dict[str, tuple[str, int | None]] = {
            tool.name: (tool.origin, tool.version) for tool in self.dyntools.tools()
        }
        self.dyntools.subscribe(self._changed)

    # ------------------------------------------------------------------ hand-written tools

    def add(
        self,
        name: str,
        func: ToolFunction,
        *,
        description: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> Tool:
        """Register `func` under `name`: `func(params) -> dict` with a JSON Schema for its
        params, or a function with typed parameters (the schema comes from the annotations,
        through pydantic, and the function is called with keyword arguments).

        The description defaults to the function's docstring, a dict-style schema to an
        object with no declared properties. A catalog name shadows a registry tool of the
        same name. Anything that cannot be called this way is refused now, not at the first
        call (`dyntools.catalog.signature`).
        """
        require_valid_name(name)
        if not callable(func):
            raise UsageError(f"the catalog tool {name!r} is not callable", tool=name)
        shape = call_shape(name, func, explicit_params=params is not None)
        if params is not None:
            schema = dict(params)
        else:
            schema = dict(shape.schema) if shape.schema is not None else dict(EMPTY_PARAMS)
        check = params_check(schema, name)
        if schema.get("type") != "object":
            raise UsageError(f'the params schema of {name!r} must declare "type": "object"')
        text = description if description is not None else inspect.getdoc(func) or ""
        tool = Tool(name, text.strip(), schema, CATALOG, None)
        with self._lock:
            self._tools[name] = _HandWritten(tool, func, check, shape)
        self._changed(name)
        return tool

    @overload
    def tool(self, name: F, /) -> F: ...

    @overload
    def tool(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        name: Any = None,
        *,
        description: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """Decorator form of `add`, bare (`@catalog.tool`) or called (`@catalog.tool("name",
        description=..., params=...)`); the name defaults to the function's name. The
        function is returned unchanged."""
        if callable(name) and not isinstance(name, str):
            func = name
            self.add(_function_name(func), func)
            return func
        if name is not None and not isinstance(name, str):
            raise UsageError(f"@catalog.tool takes a tool name (a string) or a function, not "
                             f"{type(name).__name__}")

        def register(func: F) -> F:
            if not callable(func):
                raise UsageError(f"@catalog.tool decorates a function, not "
                                 f"{type(func).__name__}")
            self.add(name or _function_name(func), func, description=description,
                     params=params)
            return func

        return register

    def remove(self, name: str) -> None:
        with self._lock:
            removed = self._tools.pop(name, None)
        if removed is None:
            raise UnknownTool(f"no catalog tool {name!r}", tool=name)
        self._changed(name)

    # ------------------------------------------------------------------------- resolution

    def get(self, name: str) -> Tool | None:
        """The tool visible under `name` (catalog, else registry), never generating."""
        require_valid_name(name)
        with self._lock:
            entry = self._tools.get(name)
        if entry is not None:
            return entry.tool
        return self.dyntools.tool(name)

    def resolve(
        self,
        name: str,
        *,
        description: str = "",
        params: Mapping[str, Any] | None = None,
        examples: Sequence[Mapping[str, Any]] = (),
        generator: Generator | None = None,
        generate: bool | None = None,
        on_station: StationListener | None = None,
    ) -> Tool:
        """The catalog tool, else the registry's current version, else a generated one.

        Generation happens only when allowed (`generate`, else the catalog's setting); the
        description, params schema and examples go to the generator and to verification.
        """
        found = self.get(name)
        if found is not None:
            return found
        allowed = self.generate if generate is None else generate
        if not allowed:
            raise UnknownTool(f"no tool {name!r} in the catalog or the registry, and "
                              "generation is off", tool=name)
        return self.ensure(ToolSpec(name, description, params, tuple(examples)),
                           generator=generator, on_station=on_station).tool

    def ensure(self, spec: ToolSpec, **options: Any) -> EnsureResult:
        """`Dyntools.ensure` for names the catalog does not own (a catalog name is refused:
        generating a version behind a hand-written tool would never be called)."""
        with self._lock:
            owned = spec.name in self._tools
        if owned:
            raise UsageError(f"{spec.name!r} is a hand-written catalog tool; it is not generated",
                             tool=spec.name)
        options.setdefault("tools", self)  # verification composes through this catalog
        return self.dyntools.ensure(spec, **options)

    def list_tools(self) -> list[Tool]:
        """Every callable tool, sorted by name: catalog tools, then registry tools they do not
        shadow."""
        with self._lock:
            tools = {name: entry.tool for name, entry in self._tools.items()}
        for tool in self.dyntools.tools():
            tools.setdefault(tool.name, tool)
        return [tools[name] for name in sorted(tools)]

    # ----------------------------------------------------------------------------- search

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """Catalog tools, current registry versions and the registry's aliases (origin
        "alias": a name that calls the tool its description names) matching `query` (plain
        words, never query syntax), best first by BM25 over name, description and PARAMS
        properties."""
        return self._synced_index(aliases=True).search(query, limit=limit)

    def similar(self, spec: ToolSpec, *, threshold: float = SIMILAR_THRESHOLD,
                limit: int = 3) -> list[SearchHit]:
        """Tools other than `spec.name` that already do the job `spec` describes: a 0..1
        similarity of name and description at or above `threshold`, and PARAMS compatible
        with the spec's schema and examples. Empty without a description."""
        if not spec.description.strip():
            return []
        hits = self._synced_index().similar(spec.name, spec.description, limit=limit * 4,
                                            exclude=spec.name)
        found = [hit for hit in hits if hit.score >= threshold
                 and params_compatible(hit.tool, spec.params, spec.examples)]
        return found[:limit]

    def _synced_index(self, *, aliases: bool = False) -> ToolIndex:
        """The index of every tool, plus (for `search`) each alias as an entry of its own.
        An alias is never a tool `similar` finds: it is the same tool under another name."""
        index = self._index.get()
        tools = self.list_tools()
        if aliases:
            owned = {tool.name for tool in tools}
            tools += [Tool(name, f"{tool.description} (an alias of {tool.name})", tool.params,
                           ALIAS, tool.version)
                      for name, tool in self.dyntools.aliases().items() if name not in owned]
        index.sync(tools)
        return index

    # ------------------------------------------------------------------------------ calls

    def call(self, name: str, params: dict[str, Any], *,
             timeout: float | None = None, chain: tuple[str, ...] = (),
             read_only: bool = False) -> dict[str, Any]:
        """Call the tool visible under `name`; never generates (resolve first for that).
        A generated tool that composes others (`host.call_tool`) finds them here too;
        `chain` lists the tools already waiting on this call, and `read_only` (a tool
        composed during another's verification) lets a generated tool's HTTP only GET. A
        hand-written tool runs in-process: neither `timeout` nor `read_only` binds it."""
        require_valid_name(name)
        with self._lock:
            entry = self._tools.get(name)
        if entry is None:
            return self.dyntools.call(name, params, timeout=timeout, tools=self, chain=chain,
                                      read_only=read_only)
        entry.check(params)
        try:
            result = entry.shape.invoke(entry.func, params)
        except InvalidParams:
            raise
        except Exception as exc:  # the operator's code: reported like a generated tool's
            raise ToolRuntimeError(f"{name} raised {type(exc).__name__}: {exc}",
                                   tool=name) from exc
        if not isinstance(result, Mapping):
            raise BadResult(f"{name} returned {type(result).__name__}, not a JSON object",
                            tool=name)
        try:
            return dict(json.loads(json.dumps(result, allow_nan=False)))
        except (TypeError, ValueError) as exc:
            raise BadResult(f"{name} returned a result that is not JSON: {exc}",
                            tool=name) from exc

    # ---------------------------------------------------------------------- notifications

    def subscribe(self, listener: ChangeListener) -> Callable[[], None]:
        """`listener(name)` when the tool visible under `name` changes; returns unsubscribe."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _changed(self, name: str) -> None:
        """Notify listeners only when what a client would see under `name` changed."""
        with self._lock:
            entry = self._tools.get(name)
        if entry is not None:
            now: tuple[str, int | None] | None = (CATALOG, None)
        else:
            record = self.dyntools.registry.current(name)
            now = (REGISTRY, record.version) if record else None
        with self._lock:
            before = self._visible.get(name)
            if now is None:
                self._visible.pop(name, None)
            else:
                self._visible[name] = now
            listeners = list(self._listeners) if before != now else []
        for listener in listeners:
            listener(name)

    def close(self) -> None:
        self._index.close()
        self.dyntools.close()


def _function_name(func: Callable[..., Any]) -> str:
    name = getattr(func, "__name__", None)
    if not isinstance(name, str):
        raise UsageError(f"{type(func).__name__} object has no __name__: give the tool a name, "
                         "@catalog.tool(\"name\")")
    return name
