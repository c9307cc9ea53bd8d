"""An MCP server whose tool list grows at run time (mcp 2.x, low-level `Server`).

    catalog = Catalog(Dyntools("generated_tools", watch=True), generate=False)
    anyio.run(serve_stdio, McpToolServer(catalog))

It lists the catalog's tools (hand-written, then the registry's current versions) with their
PARAMS JSON Schemas, calls them (generated tools in the sandbox), and adds four tools of its
own, listed first:
- `find_tools(query, limit)`: the catalog's search (FTS5 BM25 over name, description and
  PARAMS), with each hit's schema;
- `call_tool(name, params)`: call any tool by name, listed or not;
- `ensure_tool(name, description, params_schema, examples, new_version, contract_change,
  generator, reuse_similar[, source])`: run the pipeline for a missing tool (generate, gate,
  load, verify, persist, activate), or make a new version;
- `report_failure(name, params, expected, reason[, generator, source])`: a call that went
  wrong and the result it should have given, repaired into a verified next version
  (pipeline/repair.py); it waits for a reviewer unless the operator allows otherwise.
With the first two, a client that never refreshes its tool list (several do not act on
`list_changed`) can still find and call every tool, including one grown a minute ago.
With `run_code=True` (`serve-mcp --run-code`; off by default) two more follow them:
`run_code(code, inputs)` runs a gated script whose `tools.NAME(...)` calls reach exactly the
tools this server serves, and `resume_run(run_id)` continues one that waited for a decision
(dyntools/adapters/code_tools.py).
`tools="compact"` lists only these, for registries too large to list; `tools/list` is
paginated (`page_size` per page, an opaque cursor that stays valid while the list changes).
The tool-file contract and the allow-list are in `ensure_tool`'s description (a summary)
and in the resource `dyntools://tool-contract` (in full).

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

import base64
import contextlib
import io
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio
import anyio.from_thread
import mcp_types as types
from anyio.from_thread import BlockingPortal
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from dyntools import __version__
from dyntools.adapters.code_tools import (
    CODE_TOOLS,
    RUN_CODE,
    code_tool_definitions,
    resume_run_call,
    run_code_call,
)
from dyntools.adapters.results import error_payload, to_json_text
from dyntools.base.log import get_logger
from dyntools.base.toolname import MAX_TOOL_NAME
from dyntools.catalog.core import Catalog
from dyntools.errors import DyntoolsError, UnknownTool, UsageError, VerificationFailed
from dyntools.generators.base import Generator, ToolSpec
from dyntools.generators.factory import GENERATOR_NAMES, OFFERED_GENERATORS
from dyntools.generators.file import FileGenerator
from dyntools.pipeline.events import STATIONS, StationEvent, StationListener
from dyntools.pipeline.toolmeta import check_params

ENSURE_TOOL = "ensure_tool"
FIND_TOOLS = "find_tools"
CALL_TOOL = "call_tool"
REPORT_FAILURE = "report_failure"
META_TOOLS = (FIND_TOOLS, CALL_TOOL, ENSURE_TOOL, REPORT_FAILURE)
MAX_REASON_CHARS = 4000
# Every tool of the server's own, in listing order (the code tools only when turned on).
OWN_TOOLS = (*META_TOOLS, *CODE_TOOLS)
TOOLS_MODES = ("full", "compact")
PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
MAX_QUERY_CHARS = 1000
MAX_FIND_LIMIT = 50
MAX_DESCRIPTION_CHARS = 4000
MAX_SCHEMA_CHARS = 65536
CONTRACT_URI = "dyntools://tool-contract"
# The generators' table (generators/factory.py): "file" takes the tool's source from the
# caller, so it is offered only when the operator asks.
DEFAULT_GENERATORS = OFFERED_GENERATORS
KNOWN_GENERATORS = GENERATOR_NAMES
COALESCE_SECONDS = 0.05
MAX_LEGACY_SESSIONS = 256
SERVER_NAME = "dyntools"
INSTRUCTIONS = (
    "Tools here can grow at run time. To find one, call find_tools with what you need done; "
    "call any tool by name with call_tool (this works even if your tool list is out of date). "
    "If the tool you need is missing, call ensure_tool with its snake_case name, what it should "
    "do and examples; the new tool is gated, verified in a sandbox and then callable (the "
    "server also notifies you that the tool list changed). If a generated tool gives a wrong "
    "result, call report_failure with its params and the result it should have given. "
    "Errors come back as results: "
    '{"error": {"station", "reason", "message", "details"}}.'
)
CODE_INSTRUCTIONS = (
    " To do a task that needs several tool calls, send one script to run_code instead: it "
    "calls tools as tools.NAME(key=value) and answers with `result`; a run that waits for a "
    "reviewer continues with resume_run."
)

GeneratorFactory = Callable[[str], Generator]


FIND_TOOLS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": MAX_QUERY_CHARS,
                  "description": "What the tool should do, in plain words."},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_FIND_LIMIT, "default": 10,
                  "description": "At most this many tools."},
    },
    "required": ["query"],
    "additionalProperties": False,
}

CALL_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": MAX_TOOL_NAME,
                 "description": "The tool's name (from find_tools or the tool list)."},
        "params": {"type": "object",
                   "description": "The tool's params: an object matching its schema."},
    },
    "required": ["name"],
    "additionalProperties": False,
}

FIND_TOOLS_DESCRIPTION = (
    "Search the tools this server can call (including ones created during this session) by "
    "what they do: name, description and parameter names. Returns the best matches with "
    "their descriptions and params schemas; call one with call_tool."
)
CALL_TOOL_DESCRIPTION = (
    "Call any tool by name with its params, whether or not it is in your tool list (use it "
    "for tools found with find_tools or just created with ensure_tool)."
)


REPORT_FAILURE_DESCRIPTION = (
    "Report a call of a generated tool that gave a wrong result (or failed), with the result "
    "it should have given. The server turns it into a counterexample and asks for a fixed "
    "version: the generator gets the tool's source and the failure, and the new version must "
    "pass the counterexample and everything the tool already promised (its examples, earlier "
    "counterexamples) in the sandbox. The answer is the new version (its `status`: "
    "`pending` until a reviewer approves it, which is the default for repairs asked for "
    "here, or `approved` when the operator lets repairs follow the registry's policy), or an "
    "error that says why not (the current version already gives that result, the "
    "counterexample contradicts the tool's contract, or no attempt passed: every attempt's "
    "findings are in its details). Only report a result you are sure of: it becomes part of "
    "the tool's contract for every user once approved."
)


def report_failure_schema(generators: Sequence[str]) -> dict[str, Any]:
    """The input schema of `report_failure` for the generators this server offers."""
    properties: dict[str, Any] = {
        "name": {"type": "string", "maxLength": MAX_TOOL_NAME,
                 "description": "The tool whose call went wrong."},
        "params": {"type": "object", "description": "The params of that call."},
        "expected": {"type": "object",
                     "description": "The result the call should have given (an object)."},
        "reason": {"type": "string", "maxLength": MAX_REASON_CHARS,
                   "description": "Why the result was wrong, in a sentence (recorded)."},
        "generator": {"type": "string", "enum": list(generators),
                      "description": "Where the fixed code comes from."},
    }
    if "file" in generators:
        properties["source"] = {"type": "string",
                                "description": "generator file: the complete fixed tool file."}
    return {"type": "object", "properties": properties,
            "required": ["name", "params", "expected"], "additionalProperties": False}


def ensure_tool_description(policy: Any) -> str:
    """What ensure_tool does, the tool-file contract and a summary of the allow-list."""
    from dyntools.generators.prompt import CONTRACT, allowlist_summary

    return (
        "Create a missing tool, or a new version of one: generate it, check it with the static "
        "gate, verify its examples in the sandbox, then activate it (callable at once with "
        "call_tool). Returns the tool's name, description, params schema and version, and "
        "`similar`: existing tools that already do the job (reuse_similar serves the best one "
        "instead of generating). Ensuring a name that exists is a lookup unless new_version "
        "is set.\n\nEvery tool is one Python file under this contract (a source you send "
        "with the file generator must follow it):\n" + CONTRACT + "\n\n"
        + allowlist_summary(policy) + f" The full contract, with every allowed member, "
        f"builtin and the common refusals, is the resource {CONTRACT_URI}."
    )


def ensure_tool_schema(generators: Sequence[str]) -> dict[str, Any]:
    """The input schema of `ensure_tool` for the generators this server offers."""
    properties: dict[str, Any] = {
        "name": {
            "type": "string",
            "description": f"The tool's name: a snake_case identifier of at most "
                           f"{MAX_TOOL_NAME} characters.",
        },
        "description": {"type": "string", "maxLength": MAX_DESCRIPTION_CHARS,
                        "description": "What the tool should do."},
        "params_schema": {
            "type": "object",
            "description": "Optional JSON Schema (type object) for the tool's params.",
        },
        "params": {
            "type": "object",
            "description": "Deprecated name of params_schema.",
        },
        "new_version": {
            "type": "boolean",
            "description": "Generate a new version even if the tool exists; it must pass the "
                           "examples the current version passed.",
        },
        "contract_change": {
            "type": "boolean",
            "description": "With new_version: let the new version drop the examples the "
                           "current version passed.",
        },
        "reuse_similar": {
            "type": "boolean",
            "description": "If the tool is missing and an existing tool does the same job "
                           "(similar description, compatible params), return that one "
                           "instead of generating.",
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
    """Carries "the tool list changed" from any thread to the clients of both eras.

    A thread hands a change to the event loop without waiting for it (`poke`): a thread that
    waited for the loop could wait forever when the loop ends between the hand-off and the
    call, and the threads that poke are the registry watch's and the pipeline's, whose
    joins the server's exit waits for. Once `close` is called (the client has gone, or the
    server is stopping), nothing more is sent.
    """

    def __init__(self, bus: InMemorySubscriptionBus, *,
                 coalesce_seconds: float = COALESCE_SECONDS) -> None:
        self._bus = bus
        self._coalesce = coalesce_seconds
        self._portal: BlockingPortal | None = None
        self._loop_thread: int | None = None
        self._wake = anyio.Event()
        self._closed = False
        # Handshake-era connections to notify (one on stdio, any number over HTTP), each with
        # its latest session (the SDK makes one per request). One that fails a notification
        # is dropped; past MAX_LEGACY_SESSIONS the oldest goes.
        self._legacy_sessions: dict[Any, ServerSession] = {}
        self._lock = threading.Lock()

    def remember(self, session: ServerSession) -> None:
        """A handshake-era connection to notify from now on."""
        if session.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            # The connection behind the per-request session (the SDK's `_connection`; the
            # session itself if a later SDK drops it).
            connection = getattr(session, "_connection", session)
            with self._lock:
                self._legacy_sessions.pop(connection, None)
                self._legacy_sessions[connection] = session
                while len(self._legacy_sessions) > MAX_LEGACY_SESSIONS:
                    del self._legacy_sessions[next(iter(self._legacy_sessions))]

    @property
    def has_legacy_client(self) -> bool:
        """Whether a handshake-era connection has been seen (and will be notified)."""
        with self._lock:
            return len(self._legacy_sessions) > 0

    def poke(self, _name: str | None = None) -> None:
        """Thread-safe and never blocks: note a change; the loop sends one notification for
        a burst."""
        portal = self._portal
        if portal is None or self._closed:
            return  # not serving (yet, or any more): clients fetch the list when they connect
        if threading.get_ident() == self._loop_thread:
            self._wake_up()
            return
        # RuntimeError: the portal has stopped (the loop is ending); nobody is left to notify.
        with contextlib.suppress(RuntimeError):
            portal.start_task_soon(self._wake_up)

    def _wake_up(self) -> None:
        self._wake.set()

    def close(self) -> None:
        """Send nothing more: the session is closing (idempotent, from any thread)."""
        self._closed = True
        with self._lock:
            self._legacy_sessions.clear()

    async def run(self) -> None:
        """Deliver notifications until cancelled or closed."""
        self._loop_thread = threading.get_ident()
        log = get_logger("adapter.mcp")
        async with BlockingPortal() as portal:
            self._portal = portal
            try:
                while not self._closed:
                    await self._wake.wait()
                    await anyio.sleep(self._coalesce)
                    self._wake = anyio.Event()
                    if self._closed:
                        break
                    await self._publish(log)
            finally:
                self._portal = None

    async def _publish(self, log: Any) -> None:
        await self._bus.publish(ToolsListChanged())
        with self._lock:
            sessions = list(self._legacy_sessions.items())
        for connection, session in sessions:
            if self._closed:
                return
            try:
                await session.send_tool_list_changed()
            except Exception as exc:  # a closed connection must not end the server
                log.warning("mcp.notify_failed", error=repr(exc))
                with self._lock:
                    self._legacy_sessions.pop(connection, None)
        log.info("mcp.tools_list_changed", legacy=len(sessions))


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


class _ToolsChangedServer(Server[Any]):
    """The SDK's low-level server, advertising `tools.listChanged` whichever transport asks
    for the initialization options (the HTTP session manager asks without any)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities, extensions)


class McpToolServer:
    """The dyntools MCP server over one `Catalog`.

    `generators` are the names `ensure_tool` offers (a subset of `KNOWN_GENERATORS`; "file"
    lets a client send the tool's source); `generator_factory(name)` builds one (the CLI
    passes model options through it). `timeout` bounds each sandboxed call. `tools` is
    "full" (every tool after the four meta-tools) or "compact" (the meta-tools only);
    `page_size` bounds one `tools/list` page. `run_code` adds `run_code` and `resume_run`
    after the meta-tools (in both modes): scripts over exactly the tools this server serves.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        generators: Sequence[str] = DEFAULT_GENERATORS,
        generator_factory: GeneratorFactory | None = None,
        timeout: float | None = None,
        coalesce_seconds: float = COALESCE_SECONDS,
        tools: str = "full",
        page_size: int = PAGE_SIZE,
        run_code: bool = False,
    ) -> None:
        unknown = sorted(set(generators) - set(KNOWN_GENERATORS))
        if unknown or not generators:
            raise UsageError(f"ensure_tool generators must be some of "
                             f"{', '.join(KNOWN_GENERATORS)}; got {', '.join(generators)}")
        if tools not in TOOLS_MODES:
            raise UsageError(f"tools must be one of {', '.join(TOOLS_MODES)}, not {tools!r}")
        if isinstance(page_size, bool) or not 1 <= page_size <= MAX_PAGE_SIZE:
            raise UsageError(f"page_size must be 1..{MAX_PAGE_SIZE}, not {page_size!r}")
        self.catalog = catalog
        self.run_code = bool(run_code)
        self.own_tools = OWN_TOOLS if self.run_code else META_TOOLS
        self.generators = tuple(dict.fromkeys(generators))
        self.tools_mode = tools
        self.page_size = page_size
        self._factory = generator_factory or _default_factory(catalog)
        self._timeout = timeout
        self._ensure_schema = ensure_tool_schema(self.generators)
        self._report_schema = report_failure_schema(self.generators)
        self._ensure_description = ensure_tool_description(catalog.dyntools.policy)
        self.bus = InMemorySubscriptionBus()
        self.notifier = ToolListNotifier(self.bus, coalesce_seconds=coalesce_seconds)
        # A compact list never changes; clients still reach new tools through the meta-tools.
        self._unsubscribe = (catalog.subscribe(self.notifier.poke) if tools == "full"
                             else (lambda: None))
        self.server = self._build()

    def _build(self) -> Server[Any]:
        server: Server[Any] = _ToolsChangedServer(
            SERVER_NAME,
            version=__version__,
            instructions=INSTRUCTIONS + (CODE_INSTRUCTIONS if self.run_code else ""),
            on_list_tools=self._on_list_tools,
            on_call_tool=self._on_call_tool,
            on_list_resources=self._on_list_resources,
            on_read_resource=self._on_read_resource,
            on_subscriptions_listen=ListenHandler(self.bus),
        )
        server.middleware.append(_RememberSession(self.notifier))
        return server

    def initialization_options(self) -> Any:
        return self.server.create_initialization_options(
            NotificationOptions(tools_changed=True)
        )

    # --------------------------------------------------------------------------- listing

    def meta_tools(self) -> list[types.Tool]:
        """The server's own tools: the three meta-tools, then the code tools if on."""
        own = [
            types.Tool(name=FIND_TOOLS, description=FIND_TOOLS_DESCRIPTION,
                       input_schema=FIND_TOOLS_SCHEMA,
                       annotations=types.ToolAnnotations(read_only_hint=True)),
            types.Tool(name=CALL_TOOL, description=CALL_TOOL_DESCRIPTION,
                       input_schema=CALL_TOOL_SCHEMA),
            types.Tool(name=ENSURE_TOOL, description=self._ensure_description,
                       input_schema=self._ensure_schema),
            types.Tool(name=REPORT_FAILURE, description=REPORT_FAILURE_DESCRIPTION,
                       input_schema=self._report_schema),
        ]
        if self.run_code:
            own += [types.Tool(name=name, description=description, input_schema=schema)
                    for name, description, schema in code_tool_definitions()]
        return own

    def tools(self) -> list[types.Tool]:
        """Every listed tool, in order: the server's own, then (full) the catalog's tools."""
        listed = self.meta_tools()
        if self.tools_mode == "compact":
            return listed
        for tool in self.catalog.list_tools():
            if tool.name in self.own_tools:
                get_logger("adapter.mcp").warning("mcp.tool_shadowed", tool=tool.name,
                                                  reason="the name is this server's own tool")
                continue
            listed.append(types.Tool(name=tool.name, description=tool.description or None,
                                     input_schema=dict(tool.params)))
        return listed

    def page(self, cursor: str | None) -> types.ListToolsResult:
        """One page of `tools()` after `cursor` (None: the first page).

        The cursor names the last tool of the previous page, so it stays valid when tools
        are added or removed between pages: nothing is skipped that existed on both reads.
        """
        after = _decode_cursor(cursor) if cursor is not None else None
        try:
            listed = self.tools()
        except Exception as exc:  # a listing must still answer: at least the meta-tools
            get_logger("adapter.mcp").error("mcp.list_failed", error=repr(exc))
            listed = self.meta_tools()
        keys = [_sort_key(tool.name) for tool in listed]
        start = 0 if after is None else next(
            (i for i, key in enumerate(keys) if key > after), len(keys))
        chunk = listed[start:start + self.page_size]
        more = start + self.page_size < len(listed)
        return types.ListToolsResult(
            tools=chunk, next_cursor=_encode_cursor(keys[start + len(chunk) - 1])
            if more and chunk else None)

    async def _on_list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        cursor = params.cursor if params is not None else None
        return await anyio.to_thread.run_sync(self.page, cursor)

    # ------------------------------------------------------------------------- resources

    async def _on_list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(
            uri=CONTRACT_URI, name="tool-contract", title="The dyntools tool-file contract",
            description="How to write a tool file: the contract, an accepted example, every "
                        "allowed module member and builtin, and the common refusals.",
            mime_type="text/markdown")])

    async def _on_read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if str(params.uri) != CONTRACT_URI:
            raise MCPError(types.INVALID_PARAMS, f"unknown resource; this server has "
                                                 f"{CONTRACT_URI}")
        from dyntools.generators.prompt import contract_document

        dyntools = self.catalog.dyntools
        text = contract_document(dyntools.policy, dyntools.capabilities.policy)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=CONTRACT_URI, mime_type="text/markdown", text=text)])

    # ----------------------------------------------------------------------------- calls

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
            elif name == FIND_TOOLS:
                value = await anyio.to_thread.run_sync(self.find_tools, arguments)
            elif name == CALL_TOOL:
                value = await anyio.to_thread.run_sync(self.call_tool, arguments)
            elif name == REPORT_FAILURE:
                progress = _progress_reporter(ctx)
                value = await anyio.to_thread.run_sync(
                    lambda: self.report_failure(arguments, on_station=progress))
            elif self.run_code and name in CODE_TOOLS:
                run = run_code_call if name == RUN_CODE else resume_run_call
                value, failed = await anyio.to_thread.run_sync(run, self.catalog, arguments)
                return _result(value, is_error=failed)
            else:
                value = await anyio.to_thread.run_sync(self._call, name, arguments)
        except Exception as exc:  # every failure is a result the client can read
            payload = error_payload(exc)
            if isinstance(exc, UnknownTool):
                body = payload["error"]
                body["details"] = {**body["details"], "hint": (
                    f"find a tool that does the job with {FIND_TOOLS}, or call {ENSURE_TOOL} "
                    "with this name (and a description) to create it")}
            elif isinstance(exc, VerificationFailed) and name == ENSURE_TOOL and \
                    not arguments.get("new_version"):
                # The pipeline's message names the CLI flag; here it is an argument.
                body = payload["error"]
                body["details"] = {**body["details"], "hint": (
                    f"the current version does not pass these examples: call {ENSURE_TOOL} "
                    "again with new_version: true to generate one that does (and "
                    "contract_change: true if it may drop what the current version passed)")}
            if isinstance(exc, DyntoolsError):
                log.info("mcp.call_failed", station=exc.station, reason=exc.reason)
            else:
                log.error("mcp.internal_error", error=repr(exc), exc_info=True)
            return _result(payload, is_error=True)
        return _result(value, is_error=False)

    def _call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.catalog.call(name, arguments, timeout=self._timeout)

    def find_tools(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """`find_tools`: the catalog's search; each hit with what call_tool needs."""
        check_params(FIND_TOOLS_SCHEMA, dict(arguments), tool=FIND_TOOLS)
        limit = int(arguments.get("limit", 10))
        hits = [hit for hit in self.catalog.search(arguments["query"], limit=limit + 5)
                if hit.name not in self.own_tools][:limit]
        return {
            "tools": [{"name": hit.name, "description": hit.tool.description,
                       "params_schema": dict(hit.tool.params), "score": hit.score}
                      for hit in hits],
            "hint": (f"call one with {CALL_TOOL}(name, params)" if hits else
                     f"nothing matches; {ENSURE_TOOL} can create the tool you need"),
        }

    def call_tool(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """`call_tool`: call the tool named in `arguments` with its params."""
        check_params(CALL_TOOL_SCHEMA, dict(arguments), tool=CALL_TOOL)
        name = arguments["name"]
        if name in self.own_tools:
            raise UsageError(f"{name!r} is this server's own tool; call it directly",
                             tool=CALL_TOOL)
        return self._call(name, dict(arguments.get("params") or {}))

    def ensure_tool(self, arguments: Mapping[str, Any], *,
                    on_station: StationListener | None = None) -> dict[str, Any]:
        """Run the pipeline for `arguments` (checked against ensure_tool's schema)."""
        check_params(self._ensure_schema, dict(arguments), tool=ENSURE_TOOL)
        name = arguments["name"]
        if name in self.own_tools:
            # It would be created but never listed or callable here: this server's own tool
            # answers to that name.
            raise UsageError(f"{name!r} is this server's own tool; choose another name",
                             tool=ENSURE_TOOL)
        if "params" in arguments and "params_schema" in arguments:
            raise UsageError('give "params_schema" (or its old name "params"), not both',
                             tool=ENSURE_TOOL)
        schema = arguments.get("params_schema", arguments.get("params"))
        if schema is not None:
            _check_schema(schema)
        choice, source = self._generator_choice(arguments, ENSURE_TOOL)
        new_version = bool(arguments.get("new_version", False))
        spec = ToolSpec(name, arguments.get("description", ""), schema,
                        tuple(arguments.get("examples", ())))
        similar: list[Any] = []
        if not new_version and spec.description.strip() and self.catalog.get(name) is None:
            similar = self.catalog.similar(spec)
        found = [{"name": hit.name, "score": hit.score} for hit in similar]
        if similar and arguments.get("reuse_similar"):
            hit = similar[0]
            get_logger("adapter.mcp").info("mcp.reused_similar", tool=name, reused=hit.name,
                                           score=hit.score)
            return {"tool": hit.tool.as_dict(), "version": hit.tool.version, "created": False,
                    "reused": hit.name, "similar": found}
        result = self.catalog.ensure(
            spec, generator=self._generator(choice, source), on_station=on_station,
            new_version=new_version,
            contract_change=bool(arguments.get("contract_change", False)))
        get_logger("adapter.mcp").info("mcp.ensured", tool=spec.name, version=result.version,
                                       created=result.created, generator=choice)
        return {**result.as_dict(), "reused": None, "similar": found}

    def report_failure(self, arguments: Mapping[str, Any], *,
                       on_station: StationListener | None = None) -> dict[str, Any]:
        """`report_failure`: repair a registry tool from a failing call (pipeline/repair.py).
        The new version waits for a reviewer unless the operator's Dyntools allows otherwise
        (`serve-mcp --allow-unreviewed-repairs`)."""
        from dyntools.pipeline.repair import MCP

        check_params(self._report_schema, dict(arguments), tool=REPORT_FAILURE)
        name = arguments["name"]
        if name in OWN_TOOLS:
            raise UsageError(f"{name!r} is this server's own tool", tool=REPORT_FAILURE)
        found = self.catalog.get(name)
        if found is not None and found.origin != "registry":
            raise UsageError(f"{name!r} is a hand-written tool: its author fixes it",
                             tool=REPORT_FAILURE)
        choice, source = self._generator_choice(arguments, REPORT_FAILURE)
        generator = self._generator(choice, source)
        result = self.catalog.dyntools.repair(
            name, dict(arguments["params"]), dict(arguments["expected"]),
            reason=arguments.get("reason"), generator=generator, requested_by=MCP,
            on_station=on_station, tools=self.catalog)
        get_logger("adapter.mcp").info("mcp.repaired", tool=name, version=result.version,
                                       status=result.record.status, generator=choice)
        hint = (f"v{result.version} waits for a reviewer ({result.held}): "
                f"{result.approve_command}"
                if result.pending else f"v{result.version} is current: call it again")
        return {**result.as_dict(), "hint": hint}

    def _generator_choice(self, arguments: Mapping[str, Any], tool: str) -> tuple[str, Any]:
        """The generator a call of `tool` (ensure_tool, report_failure) asks for, and its
        "source": a source means generator "file" (the default then), and only it."""
        source = arguments.get("source")
        choice = arguments.get("generator") or ("file" if source is not None
                                                else self.generators[0])
        if (source is not None) != (choice == "file"):
            raise UsageError('"source" goes with generator "file", and only with it', tool=tool)
        return choice, source

    def _generator(self, choice: str, source: Any) -> Generator:
        """The chosen generator, built when it is about to be used."""
        if choice == "file":
            return FileGenerator(stdin=io.BytesIO(str(source).encode("utf-8")))
        return self._factory(choice)

    def close(self) -> None:
        self._unsubscribe()
        self.notifier.close()


def _check_schema(schema: Any) -> None:
    """A caller's params_schema is compiled in this process: hold it to the gate's PARAMS
    rules (linear-time patterns, bounded fan-out, no remote references) and a size."""
    import json

    from dyntools.gate.contract import params_schema_problem

    try:
        size = len(json.dumps(schema))
    except (TypeError, ValueError, RecursionError):
        raise UsageError("params_schema is not JSON", tool=ENSURE_TOOL) from None
    if size > MAX_SCHEMA_CHARS:
        raise UsageError(f"params_schema is {size} characters of JSON; at most "
                         f"{MAX_SCHEMA_CHARS}", tool=ENSURE_TOOL)
    problem = params_schema_problem(schema)
    if problem is not None:
        raise UsageError(problem.replace("PARAMS", "params_schema", 1), tool=ENSURE_TOOL)


def _sort_key(name: str) -> tuple[int, int, str]:
    """Listing order: the server's own tools (in their order), then every other tool by
    name."""
    if name in OWN_TOOLS:
        return (0, OWN_TOOLS.index(name), "")
    return (1, 0, name)


def _encode_cursor(key: tuple[int, int, str]) -> str:
    text = f"{key[0]}:{key[1]}:{key[2]}"
    return base64.urlsafe_b64encode(text.encode("ascii")).decode("ascii")


def _decode_cursor(cursor: str) -> tuple[int, int, str]:
    """The key a cursor names; a cursor this server did not make is an INVALID_PARAMS error."""
    try:
        if len(cursor) > 4 * MAX_TOOL_NAME:
            raise ValueError("too long")
        group, index, name = base64.urlsafe_b64decode(cursor.encode("ascii")).decode(
            "ascii").split(":", 2)
        key = (int(group), int(index), name)
        if key[0] not in (0, 1) or not 0 <= key[1] < len(OWN_TOOLS) or len(name) > MAX_TOOL_NAME:
            raise ValueError("out of range")
    except (ValueError, UnicodeError) as exc:
        raise MCPError(types.INVALID_PARAMS, f"invalid cursor ({exc})") from None
    return key


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
        # The client has gone: nothing more is sent on its closing session.
        server.notifier.close()
        group.cancel_scope.cancel()
    log.info("mcp.stopped")
