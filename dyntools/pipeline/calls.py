"""Calls: the current version of a tool, run in the sandbox with its capability host, and
the tools the registry serves as callers see them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

from dyntools.base.random_ids import RandomIds
from dyntools.capabilities.hostcalls import HostCalls
from dyntools.errors import (
    BadResult,
    DyntoolsError,
    PendingApproval,
    SandboxMemoryLimit,
    SandboxTimeout,
    SandboxViolation,
    ToolRuntimeError,
    VersionUnusable,
    WorkerCrashed,
)
from dyntools.pipeline.core import PipelineCore, ToolSource
from dyntools.pipeline.events import FAILED, OK, approve_command_for, log_execute
from dyntools.pipeline.toolmeta import (
    Tool,
)
from dyntools.registry.records import VersionRecord

_CALL_IDS = RandomIds(8)  # os.urandom per call would hand the GIL away (base/random_ids.py)


class ServedCall(NamedTuple):
    """A call's result and the version that served it."""

    version: int
    result: dict[str, Any]


class Calling(PipelineCore):
    """`Dyntools.call`, `call_served`, `tool`, `tools` and `subscribe`."""

    def call(self, name: str, params: dict[str, Any], *,
             timeout: float | None = None, tools: ToolSource | None = None,
             chain: tuple[str, ...] = (), read_only: bool = False) -> dict[str, Any]:
        """Run the current version of `name` in the sandbox (one audit event per call).

        A version that declares CAPABILITIES gets a host for its requests: HTTP through the
        broker under the operator's policy, `host.call_tool` through `tools` (the Catalog
        passes itself; default: this registry); `chain` lists the tools already waiting on
        this call (composition depth and cycles). With `read_only` (a tool composed while
        another is verified) its HTTP requests may only GET, and so may what it composes.
        No secret leaves in the result or error. A name that is an alias calls the tool it
        serves (`Registry.alias_of`). The call's audit event has an `id`; a failed call's
        error carries it (`details["call_id"]`) and, unless `keep_failed_calls` is off, its
        params are kept, redacted, for a repair (pipeline/failed_calls.py)."""
        return self.call_served(name, params, timeout=timeout, tools=tools, chain=chain,
                                read_only=read_only).result

    def call_served(self, name: str, params: dict[str, Any], *,
                    timeout: float | None = None, tools: ToolSource | None = None,
                    chain: tuple[str, ...] = (), read_only: bool = False) -> ServedCall:
        """`call`, and the version that served it. The current version is looked up once,
        and its file read and hash-checked once on a cold call (none on a warm one): the
        runtime is handed both."""
        started = time.perf_counter()
        call_id = _CALL_IDS.hex()  # 16 hex digits, as pipeline/failed_calls.py expects
        name = self.registry.alias_of(name) or name
        version: int | None = None
        hosts: list[HostCalls] = []
        try:
            try:
                record = self.registry.served(name)
            except VersionUnusable:
                waiting = self.pending_version(name)
                if waiting is None:
                    raise
                version = waiting.version
                raise PendingApproval(
                    f"tool {name!r} v{waiting.version} is pending approval and is not "
                    f"served until a reviewer approves it: "
                    f"{approve_command_for(waiting)}",
                    tool=name, version=waiting.version,
                    approve_command=approve_command_for(waiting)) from None
            version = record.version
            # A warm call runs the bytes its pool was started from, checked when they were
            # read: the file is read and hash-checked here for a cold call only (and by the
            # params check itself, the first time it is made for this version).
            source = None if self.runtime.serves(record) else self.registry.verified_source(
                name, record.version, sha256=record.sha256)
            self._params_check(record, source)(params)
            served = [record]

            def prepare(used: VersionRecord) -> HostCalls | None:
                # The version the runtime checked out, which may be newer than `record`.
                served[0] = used
                if used.version != record.version or used.sha256 != record.sha256:
                    self._params_check(used)(params)
                declared = self._declared_by(used)
                if not declared:
                    return None
                host = self.capabilities.live(
                    tool=name, version=used.version, declared=declared,
                    tools=self._composer(tools, read_only=read_only), chain=chain,
                    read_only=read_only)
                hosts.append(host)
                return host

            try:
                result = self.runtime.call(name, params, timeout, prepare=prepare,
                                           current=(record, None if source is None
                                                    else source.decode("utf-8")))
            except DyntoolsError as exc:
                for host in hosts:
                    exc.message = host.redact(exc.message)
                    exc.args = (exc.message,)
                    exc.details = host.redact(exc.details)
                raise
            for host in hosts:
                result = host.redact(result)
        except DyntoolsError as exc:
            kept = self._keep_failed(call_id, name, version, params, exc, hosts, read_only)
            exc.details["call_id"] = call_id
            if kept:
                exc.details["params_kept"] = True
            exc.details.setdefault("tool", name)
            log_execute(name, version, started, FAILED, exc.reason, exc.message, call_id, kept)
            raise
        log_execute(name, version, started, OK, None, None, call_id)
        return ServedCall(served[0].version, result)

    def _keep_failed(self, call_id: str, name: str, version: int | None, params: Any,
                     error: DyntoolsError, hosts: list[HostCalls],
                     read_only: bool) -> bool | None:
        """Keep a failed call's params for a repair (None: not kept by choice, a call made
        while a composing tool is verified, or one that never reached the tool: an unknown
        tool, params its schema refuses, a pending version, a sandbox below its minimum)."""
        if not self.keep_failed_calls or version is None or read_only or not isinstance(
                error, ToolRuntimeError | BadResult | SandboxTimeout | SandboxMemoryLimit
                | SandboxViolation | WorkerCrashed):
            return None  # only a call that reached the tool and went wrong there
        from dyntools.pipeline.failed_calls import FailedCalls

        redactor = self.secrets_redactor()

        def redact(value: Any) -> Any:
            for host in hosts:
                value = host.redact(value)
            return redactor(value)

        return FailedCalls(self.registry.root).keep(call_id, name, version, params,
                                                    error.reason, error.message, redact)

    def tool(self, name: str) -> Tool | None:
        """The current version of `name` as callers see it (of the tool it serves, for an
        alias), or None."""
        record = self.registry.current(self.registry.alias_of(name) or name)
        return self._tool(record) if record is not None else None

    def aliases(self) -> dict[str, Tool]:
        """Each served alias and the tool it calls: names callers may use, never tools of
        their own (`tools` does not list them)."""
        served = {}
        for name in self.registry.aliases():
            tool = self.tool(name)
            if tool is not None and self.registry.alias_of(name) is not None:
                served[name] = tool
        return served

    def tools(self) -> list[Tool]:
        """Every registry tool with a usable current version."""
        tools = []
        for state in self.registry.tools():
            record = state.current_record
            if record is None:
                continue
            try:
                tools.append(self._tool(record))
            except VersionUnusable:
                continue  # edited on disk: the registry has quarantined it and logged why
        return tools

    def subscribe(self, listener: Callable[[str], None]) -> None:
        """`listener(tool_name)` after any change to a tool in the registry."""
        self.registry.subscribe(listener)
