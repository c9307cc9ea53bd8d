"""Calls: the current version of a tool, run in the sandbox with its capability host, and
the tools the registry serves as callers see them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dyntools.capabilities.hostcalls import HostCalls
from dyntools.errors import (
    DyntoolsError,
    PendingApproval,
    UnknownTool,
    VersionUnusable,
)
from dyntools.pipeline.core import PipelineCore, ToolSource
from dyntools.pipeline.events import FAILED, OK, approve_command, log_execute
from dyntools.pipeline.toolmeta import (
    Tool,
)
from dyntools.registry.records import VersionRecord

if TYPE_CHECKING:
    pass

else:  # typing's checks every annotation as the class is made (dyntools/base/tuples.py)
    pass


class Calling(PipelineCore):
    """`Dyntools.call`, `tool`, `tools` and `subscribe`."""

    def call(self, name: str, params: dict[str, Any], *,
             timeout: float | None = None, tools: ToolSource | None = None,
             chain: tuple[str, ...] = (), read_only: bool = False) -> dict[str, Any]:
        """Run the current version of `name` in the sandbox (one audit event per call).

        A version that declares CAPABILITIES gets a host for its requests: HTTP through the
        broker under the operator's policy, `host.call_tool` through `tools` (the Catalog
        passes itself; default: this registry); `chain` lists the tools already waiting on
        this call (composition depth and cycles). With `read_only` (a tool composed while
        another is verified) its HTTP requests may only GET, and so may what it composes.
        No secret leaves in the result or error."""
        started = time.perf_counter()
        record = self.registry.current(name)
        version = record.version if record is not None else None
        try:
            if record is None:
                if name not in self.registry.names():
                    raise UnknownTool(f"unknown tool {name!r} in registry {self.registry.root}",
                                      tool=name)
                refusal = self.registry.refusal(name)  # with trusted keys: its decision chain
                if refusal is not None:
                    raise refusal
                waiting = self.pending_version(name)
                if waiting is not None:
                    version = waiting.version
                    raise PendingApproval(
                        f"tool {name!r} v{waiting.version} is pending approval and is not "
                        f"served until a reviewer approves it: "
                        f"{approve_command(name, waiting.version)}",
                        tool=name, version=waiting.version,
                        approve_command=approve_command(name, waiting.version))
                state = self.registry.tool(name)
                pointed = (state.records.get(state.recorded_current)
                           if state.recorded_current is not None else None)
                why = (f": v{pointed.version} is {pointed.status} ({pointed.reason_code}: "
                       f"{pointed.reason})" if pointed is not None and not pointed.usable
                       else f": {state.error}" if state.error else "")
                raise VersionUnusable(f"tool {name!r} has no usable version (quarantined, "
                                      f"rejected, or none is current){why}", tool=name)
            self._params_check(record)(params)
            hosts: list[HostCalls] = []

            def prepare(used: VersionRecord) -> HostCalls | None:
                # The version the runtime checked out, which may be newer than `record`.
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
                result = self.runtime.call(name, params, timeout, prepare=prepare)
            except DyntoolsError as exc:
                for host in hosts:
                    exc.message = host.redact(exc.message)
                    exc.args = (exc.message,)
                    exc.details = host.redact(exc.details)
                raise
            for host in hosts:
                result = host.redact(result)
        except DyntoolsError as exc:
            log_execute(name, version, started, FAILED, exc.reason, exc.message)
            raise
        log_execute(name, version, started, OK, None, None)
        return result

    def tool(self, name: str) -> Tool | None:
        """The current version of `name` as callers see it, or None."""
        record = self.registry.current(name)
        return self._tool(record) if record is not None else None

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
