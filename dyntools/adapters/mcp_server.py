"""An MCP server whose tool list grows at run time (mcp 2.x, low-level `Server`).

    catalog = Catalog(Dyntools("generated_tools", watch=True), generate=False)
    anyio.run(serve_stdio, McpToolServer(catalog))

It lists the catalog's tools (hand-written, then the registry's current versions) with their
PARAMS JSON Schemas, calls them (generated tools in the sandbox), and adds one tool of its
own, `ensure_tool`, which runs the pipeline for a missing tool: generate, gate, load, verify,
persist, activate.

Errors are results, never protocol errors: every failure (an unknown tool, invalid params, a
gate rejection, a timeout, a bug) comes back as `CallToolResult(is_error=True)` whose text
and `structuredContent` are `{"error": {"station", "reason", "message", "details"}}`. A
low-level handler that raised would give the client only "Internal server error".

Tool-list changes (a new version from `ensure_tool` or another process, a rollback, a
quarantine, any watch event that changes what a client would see) reach clients of both
protocol eras of mcp 2.x: handshake-era clients get `notifications/tools/list_changed` on the
connection, current-era clients get `ToolsListChanged` on their `subscriptions/listen`
stream. Changes arrive on other threads (the registry watcher, a worker thread running
`ensure`); they are handed to the event loop and coalesced for a few milliseconds, since
one ensure moves several things at once.

stdout is the protocol: logs go to stderr (structlog as configured by the CLI; the SDK's own
stdlib logging goes to stderr by default), and while serving, the SDK's `stdio_server` points
fd 1 at stderr so a stray print cannot corrupt the wire.
"""

from __future__ import annotations

import contextlib
import io
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from dyntools import __version__
from dyntools.adapters.results import error_payload, to_json_text
from dyntools.catalog import Catalog
from dyntools.errors import DyntoolsError, UnknownTool, UsageError
from dyntools.generators.base import Generator, ToolSpec
from dyntools.generators.file import FileGenerator
from dyntools.log import get_logger
from dyntools.pipeline import STATIONS, StationEvent, StationListener
from dyntools.toolmeta import check_params
from dyntools.toolname import MAX_TOOL_NAME

ENSURE_TOOL = "ensure_tool"
DEFAULT_GENERATORS = ("offline", "anthropic", "openai")
# "file" takes the tool's source from the caller; it is offered only when the operator asks.
KNOWN_GENERATORS = ("offline", "anthropic", "openai", "file")
COALESCE_SECONDS = 0.05
SERVER_NAME = "dyntools"
INSTRUCTIONS = (
    "Tools here can grow at run time. If the tool you need is missing, call ensure_tool with "
    "its snake_case name, what it should do and examples; the new tool is gated, verified in a "
    "sandbox and then listed (the server notifies you that the tool list changed). Errors come "
    'back as results: {"error": {"station", "reason", "message", "details"}}.'
)

GeneratorFactory = Callable[[str], Generator]


def ensure_tool_schema(generators: Sequence[str]) -> dict[str, Any]:
    """The input schema of `ensure_tool` for the generators this server offers."""
    properties: dict[str, Any] = {
        "name": {
            "type": "string",
            "description": f"The tool's name: a snake_case identifier of at most "
                           f"{MAX_TOOL_NAME} characters.",
        },
        "description": {"type": "string", "description": "What the tool should do."},
        "params": {
            "type": "object",
            "description": "Optional JSON Schema (type object) for the tool's params.",
        },
        "examples": {
            "type": "array",
            "description": "Fixtures the new tool must pass before it is activated.",
            "items": {
                "type": "object",
                "properties": {"params": {"type": "object"}, "result": {"type": "object"}},
                "required": ["params", "result"],
                "additionalProperties": False,
            },
        },
        "generator": {
            "type": "string",
            "enum": list(generators),
            "description": "Where the code comes from (offline: built-in templates only).",
        },
    }
    if "file" in generators:
        properties["source"] = {
            "type": "string",
            "description": "generator file: the complete tool file (it is gated and verified "
                           "like generated code).",
        }
    return {
        "type": "object",
        "properties": properties,
        "required": ["name"],
        "additionalProperties": False,
    }


class ToolListNotifier:
    """Carries "the tool list changed" from any thread to the clients of both eras."""

    def __init__(self, bus: InMemorySubscriptionBus, *,
                 coalesce_seconds: float = COALESCE_SECONDS) -> None:
        self._bus = bus
        self._coalesce = coalesce_seconds
        self._token: Any = None
        self._loop_thread: int | None = None
        self._wake = anyio.Event()
        self._legacy_session: ServerSession | None = None
        self._lock = threading.Lock()

    def remember(self, session: ServerSession) -> None:
        """The handshake-era connection to notify (stdio serves one connection)."""
        if session.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            with self._lock:
                self._legacy_session = session

    @property
    def has_legacy_client(self) -> bool:
        """Whether a handshake-era connection has been seen (and will be notified)."""
        with self._lock:
            return self._legacy_session is not None

    def poke(self, _name: str | None = None) -> None:
        """Thread-safe: note a change; the loop sends one notification for a burst."""
        token = self._token
        if token is None:
            return  # not serving yet: clients fetch the list when they connect
        if threading.get_ident() == self._loop_thread:
            self._wake.set()
            return
        # RuntimeError: the loop has ended (shutting down); nobody is left to notify.
        with contextlib.suppress(RuntimeError):
            anyio.from_thread.run_sync(self._wake.set, token=token)

    async def run(self) -> None:
        """Deliver notifications until cancelled."""
        self._token = anyio.lowlevel.current_token()
        self._loop_thread = threading.get_ident()
        log = get_logger("adapter.mcp")
        while True:
            await self._wake.wait()
            await anyio.sleep(self._coalesce)
            self._wake = anyio.Event()
            await self._bus.publish(ToolsListChanged())
            with self._lock:
                session = self._legacy_session
            if session is not None:
                try:
                    await session.send_tool_list_changed()
                except Exception as exc:  # a closed connection must not end the server
                    log.warning("mcp.notify_failed", error=repr(exc))
            log.info("mcp.tools_list_changed", legacy=session is not None)


class _RememberSession:
    """Server middleware: after the handshake, remember the connection for notifications."""

    def __init__(self, notifier: ToolListNotifier) -> None:
        self._notifier = notifier

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method != "initialize":
            self._notifier.remember(ctx.session)
        return result


class McpToolServer:
    """The dyntools MCP server over one `Catalog`.

    `generators` are the names `ensure_tool` offers (a subset of `KNOWN_GENERATORS`; "file"
    lets a client send the tool's source); `generator_factory(name)` builds one (the CLI
    passes model options through it). `timeout` bounds each sandboxed call.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        generators: Sequence[str] = DEFAULT_GENERATORS,
        generator_factory: GeneratorFactory | None = None,
        timeout: float | None = None,
        coalesce_seconds: float = COALESCE_SECONDS,
    ) -> None:
        unknown = sorted(set(generators) - set(KNOWN_GENERATORS))
        if unknown or not generators:
            raise UsageError(f"ensure_tool generators must be some of "
                             f"{', '.join(KNOWN_GENERATORS)}; got {', '.join(generators)}")
        self.catalog = catalog
        self.generators = tuple(dict.fromkeys(generators))
        self._factory = generator_factory or _default_factory(catalog)
        self._timeout = timeout
        self._ensure_schema = ensure_tool_schema(self.generators)
        self.bus = InMemorySubscriptionBus()
        self.notifier = ToolListNotifier(self.bus, coalesce_seconds=coalesce_seconds)
        self._unsubscribe = catalog.subscribe(self.notifier.poke)
        self.server = self._build()

    def _build(self) -> Server[Any]:
        server: Server[Any] = Server(
            SERVER_NAME,
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self._on_list_tools,
            on_call_tool=self._on_call_tool,
            on_subscriptions_listen=ListenHandler(self.bus),
        )
        server.middleware.append(_RememberSession(self.notifier))
        return server

    def initialization_options(self) -> Any:
        return self.server.create_initialization_options(
            NotificationOptions(tools_changed=True)
        )

    # --------------------------------------------------------------------------- handlers

    def tools(self) -> list[types.Tool]:
        listed = [
            types.Tool(
                name=ENSURE_TOOL,
                description="Create a missing tool: generate it, check it with the static "
                            "gate, verify its examples in the sandbox, then list it. Returns "
                            "the new tool's name, description, params schema and version.",
                input_schema=self._ensure_schema,
            )
        ]
        for tool in self.catalog.list_tools():
            if tool.name == ENSURE_TOOL:
                get_logger("adapter.mcp").warning("mcp.tool_shadowed", tool=tool.name,
                                                  reason="the name is this server's own tool")
                continue
            listed.append(types.Tool(name=tool.name, description=tool.description or None,
                                     input_schema=dict(tool.params)))
        return listed

    async def _on_list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        try:
            tools = await anyio.to_thread.run_sync(self.tools)
        except Exception as exc:  # a listing must still answer: at least ensure_tool
            get_logger("adapter.mcp").error("mcp.list_failed", error=repr(exc))
            tools = [types.Tool(name=ENSURE_TOOL, description="Create a missing tool.",
                                input_schema=self._ensure_schema)]
        return types.ListToolsResult(tools=tools)

    async def _on_call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name = params.name
        arguments = dict(params.arguments or {})
        log = get_logger("adapter.mcp", tool=name)
        try:
            if name == ENSURE_TOOL:
                progress = _progress_reporter(ctx)
                value = await anyio.to_thread.run_sync(
                    lambda: self.ensure_tool(arguments, on_station=progress))
            else:
                value = await anyio.to_thread.run_sync(self._call, name, arguments)
        except Exception as exc:  # every failure is a result the client can read
            payload = error_payload(exc)
            if isinstance(exc, UnknownTool):
                body = payload["error"]
                body["details"] = {**body["details"], "hint": (
                    f"call {ENSURE_TOOL} with this name (and a description) to create it")}
            if isinstance(exc, DyntoolsError):
                log.info("mcp.call_failed", station=exc.station, reason=exc.reason)
            else:
                log.error("mcp.internal_error", error=repr(exc), exc_info=True)
            return _result(payload, is_error=True)
        return _result(value, is_error=False)

    def _call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.catalog.call(name, arguments, timeout=self._timeout)

    def ensure_tool(self, arguments: Mapping[str, Any], *,
                    on_station: StationListener | None = None) -> dict[str, Any]:
        """Run the pipeline for `arguments` (checked against ensure_tool's schema)."""
        check_params(self._ensure_schema, dict(arguments), tool=ENSURE_TOOL)
        if arguments["name"] == ENSURE_TOOL:
            # It would be created but never listed or callable here: this server's own tool
            # answers to that name.
            raise UsageError(f"{ENSURE_TOOL!r} is this server's own tool; choose another name",
                             tool=ENSURE_TOOL)
        source = arguments.get("source")
        choice = arguments.get("generator") or ("file" if source is not None
                                                else self.generators[0])
        if (source is not None) != (choice == "file"):
            raise UsageError('"source" goes with generator "file", and only with it',
                             tool=ENSURE_TOOL)
        if choice == "file":
            generator: Generator = FileGenerator(
                stdin=io.BytesIO(str(source).encode("utf-8")))
        else:
            generator = self._factory(choice)
        spec = ToolSpec(
            arguments["name"],
            arguments.get("description", ""),
            arguments.get("params"),
            tuple(arguments.get("examples", ())),
        )
        result = self.catalog.ensure(spec, generator=generator, on_station=on_station)
        get_logger("adapter.mcp").info("mcp.ensured", tool=spec.name, version=result.version,
                                       created=result.created, generator=choice)
        return result.as_dict()

    def close(self) -> None:
        self._unsubscribe()


def _result(value: Mapping[str, Any], *, is_error: bool) -> types.CallToolResult:
    structured = dict(value)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=to_json_text(structured))],
        structured_content=structured,
        is_error=is_error,
    )


def _progress_reporter(ctx: ServerRequestContext[Any, Any]) -> StationListener:
    """Each finished station as MCP progress (sent only if the client asked for progress).

    Runs on the worker thread that runs `ensure`; the send happens on the event loop. A
    client that went away must not fail the pipeline, so delivery problems are dropped.
    """
    done = 0

    def report(event: StationEvent) -> None:
        nonlocal done
        if not event.finished:
            return
        done += 1
        message = f"{event.station}: {event.outcome}" + (f" ({event.detail})" if event.detail
                                                          else "")
        with contextlib.suppress(Exception):
            anyio.from_thread.run(ctx.session.report_progress, float(done),
                                  float(len(STATIONS) + 1), message)

    return report


def _default_factory(catalog: Catalog) -> GeneratorFactory:
    from dyntools.generators.factory import build_generator

    def build(name: str) -> Generator:
        return build_generator(name, policy=catalog.dyntools.policy)

    return build


async def serve_stdio(server: McpToolServer) -> None:
    """Serve one client over stdin/stdout until it disconnects."""
    log = get_logger("adapter.mcp")
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as group:
        group.start_soon(server.notifier.run)
        log.info("mcp.serving", transport="stdio", generators=list(server.generators))
        await server.server.run(read_stream, write_stream, server.initialization_options())
        group.cancel_scope.cancel()
    log.info("mcp.stopped")
