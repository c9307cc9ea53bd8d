"""The host's side of a running script: each `tools.NAME(...)` request frame, answered.

    host = ScriptHost(surface=dt, recorded=record.calls, limits=limits, ...)
    worker.call(inputs, host=host, on_output=host.printed)

A script's worker is untrusted like any tool's: a frame that is not exactly what the stubs
send (`{"op": "call_tool", "name": str, "params": dict}`) is a CapabilityViolation, which ends
the run and kills the worker. A well-formed request is, in order:

1. replayed, while the run has recorded calls left (a resume): the k-th request must be the
   k-th recorded call (tool and canonical params), else ReplayDiverged ends the run; its
   recorded answer is sent again and the tool is not called;
2. counted against `max_tool_calls` (recorded calls included): past it, RunLimitExceeded
   ends the run;
3. called on the caller's surface (`surface.call`, the same call a caller makes directly:
   the tool's own worker, its capabilities, its secrets, its redaction), with the time left
   in the run and a chain that holds the script's place (`max_depth`);
4. answered with the tool's result, or with an error the script may catch as
   `host.ToolError` (unknown tool, invalid params, the tool's own failure); except that a
   tool with no current version and a pending one suspends the run (`Suspended`, which ends
   the worker): the run waits for a decision on it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from dyntools.base.log import get_logger
from dyntools.base.toolname import tool_name_problem
from dyntools.capabilities.hostcalls import MAX_TOOL_DEPTH
from dyntools.codemode.record import OK, CallRecord, call_key
from dyntools.errors import (
    CapabilityViolation,
    DyntoolsError,
    PendingApproval,
    ReplayDiverged,
    RunLimitExceeded,
)

REQUEST_KEYS = frozenset({"op", "name", "params"})
# The first entry of the chain a script's tool calls carry: not a tool name (it has a
# space), so it never equals one in the cycle check; the entries after it stand for the
# places `max_depth` takes away.
SCRIPT_MARK = "script"
DEPTH_MARK = "(max-depth)"


class ToolSurface(Protocol):
    """What a script's calls reach: a Dyntools (the registry's current tools) or a Catalog
    (the tools an adapter or the MCP server serves). Both take exactly these arguments."""

    def call(self, name: str, params: dict[str, Any], *, timeout: float | None = None,
             chain: tuple[str, ...] = (), read_only: bool = False) -> dict[str, Any]: ...


class Suspended(Exception):
    """The script called a tool that waits for a decision: the run stops here and waits."""

    def __init__(self, waiting: dict[str, Any]) -> None:
        super().__init__(f"waiting for {waiting.get('tool')}")
        self.waiting = waiting


def depth_chain(run_id: str, max_depth: int) -> tuple[str, ...]:
    """The chain a script's tool calls carry: the script's own place, then one mark per
    place `max_depth` leaves unused, so that composition below the script stops at
    `max_depth` tools (dyntools/capabilities/hostcalls.py counts the chain)."""
    unused = max(0, MAX_TOOL_DEPTH - 1 - max_depth)
    return (f"{SCRIPT_MARK} {run_id}",) + (DEPTH_MARK,) * unused


class ScriptHost:
    """Answers one script segment's requests (a run, or one resume of it)."""

    def __init__(self, *, surface: ToolSurface, run_id: str, segment: int,
                 recorded: list[CallRecord], max_tool_calls: int, max_depth: int,
                 call_timeout: float, version_of: Callable[[str], int | None],
                 budget_s: float, waited: tuple[str, str] | None = None) -> None:
        """`recorded`: the calls to replay; `waited`: (tool, key) of the call the run waited
        at, when resuming: the first call after the replayed ones must be that one."""
        self.surface = surface
        self.run_id = run_id
        self.segment = segment
        self.recorded = recorded
        self.max_tool_calls = max_tool_calls
        self.chain = depth_chain(run_id, max_depth)
        self.call_timeout = call_timeout
        self.version_of = version_of
        self.waited = waited
        self.calls: list[CallRecord] = []  # made (or replayed) in this segment, in order
        self.chunks: list[str] = []  # what the script printed, in the pieces that arrived
        self.printed_chars = 0
        # The run's time left (`budget_s`) counts from the moment the live part begins: a
        # replayed prefix's own code gets the worker's allowance, its calls are answered
        # from the record.
        self.budget_s = budget_s
        self.resuming = bool(recorded) or waited is not None
        self.call_started: float | None = None
        # Where the replayed prefix's output ends in this segment's output (0: nothing was
        # replayed), and when the live part began (monotonic; None until it has).
        self.live_from = 0
        self.live_at: float | None = None
        self.waiting: dict[str, Any] | None = None
        # Set when the live part passed the run's time left and its worker was ended for it
        # (runner.py's watch of a resume): the segment then ends as a timeout.
        self.overran = False
        self._log = get_logger("codemode", run_id=run_id)

    def started(self) -> None:
        """The worker has started and the script's call begins now."""
        self.call_started = time.monotonic()
        if not self.resuming:
            self.live_at = self.call_started

    def live_deadline(self) -> float | None:
        """When the live part's time is up (monotonic), once it has begun."""
        return self.live_at + self.budget_s if self.live_at is not None else None

    def charged_s(self, ended: float) -> float:
        """The seconds this segment counts against the run's timeout: from the start of its
        live part (all of it, when it never got there) to `ended`."""
        since = self.live_at if self.live_at is not None else self.call_started
        return max(0.0, ended - since) if since is not None else 0.0

    # ------------------------------------------------------------------------------ output

    def printed(self, text: str) -> None:
        """What the script printed before its next request (the runner's `on_output`)."""
        self.chunks.append(text)
        self.printed_chars += len(text)

    def live_output(self, full: str) -> str:
        """This segment's output without the replayed prefix's (printed before the wait)."""
        return full[self.live_from:]

    # ---------------------------------------------------------------------------- requests

    def __call__(self, request: Any, deadline: float) -> dict[str, Any]:
        if self.waiting is not None:
            raise self._violation("the worker sent a request after its run was suspended")
        name, params = self._checked(request)
        index = len(self.calls)
        if index < len(self.recorded):
            return self._replay(index, name, params)
        if self.live_at is None:
            self.live_at = time.monotonic()
            self.live_from = self.printed_chars
            if self.waited is not None:
                self._check_waited(index, name, params)
        if index >= self.max_tool_calls:
            raise RunLimitExceeded(
                f"the script made more than {self.max_tool_calls} tool calls "
                "(max_tool_calls, counted over the whole run)", run_id=self.run_id,
                max_tool_calls=self.max_tool_calls)
        return self._live(index, name, params, deadline)

    def _checked(self, request: Any) -> tuple[str, dict[str, Any]]:
        if not isinstance(request, dict) or set(request) != REQUEST_KEYS or \
                request.get("op") != "call_tool":
            raise self._violation("the worker sent a request frame that is not a tool call")
        name, params = request["name"], request["params"]
        if not isinstance(name, str) or not isinstance(params, dict):
            raise self._violation("the worker sent a malformed tool call frame")
        if tool_name_problem(name) is not None:
            # The gate lets a script name tools only as tools.NAME, NAME an identifier: a
            # name that is not a tool name came from somewhere else.
            raise self._violation(f"the worker asked for {name[:64]!r}, which is not a tool "
                                  "name")
        return name, params

    def _key(self, name: str, params: dict[str, Any]) -> str:
        try:
            return call_key(name, params)
        except (TypeError, ValueError, RecursionError):
            raise self._violation("the worker sent tool params that are not JSON data") \
                from None

    def _replay(self, index: int, name: str, params: dict[str, Any]) -> dict[str, Any]:
        recorded = self.recorded[index]
        if recorded.tool != name or recorded.key != self._key(name, params):
            what = ("another tool" if recorded.tool != name else "other params")
            raise ReplayDiverged(
                f"the resumed script's tool call {index + 1} is {name}(...) with {what} than "
                f"its run recorded ({recorded.tool}(...)): the recorded results no longer "
                "apply, so the run ends (start it again with dyntools run)",
                run_id=self.run_id, call=index + 1, recorded=recorded.tool, made=name)
        self.calls.append(recorded)
        return recorded.answer()

    def _check_waited(self, index: int, name: str, params: dict[str, Any]) -> None:
        assert self.waited is not None
        tool, key = self.waited
        if tool != name or key != self._key(name, params):
            raise ReplayDiverged(
                f"the resumed script's tool call {index + 1} is {name}(...), not the "
                f"{tool}(...) call its run waited at: the decision it waited for no longer "
                "applies, so the run ends (start it again with dyntools run)",
                run_id=self.run_id, call=index + 1, recorded=tool, made=name)

    def _live(self, index: int, name: str, params: dict[str, Any],
              deadline: float) -> dict[str, Any]:
        key = self._key(name, params)
        version = self.version_of(name)
        assert self.live_at is not None
        remaining = min(deadline, self.live_at + self.budget_s) - time.monotonic()
        started = time.perf_counter()
        if remaining <= 0:
            error: dict[str, Any] = {"reason": "timeout",
                                     "message": "no time is left in the script's run"}
            return self._record(name, params, key, version, started, None, error)
        try:
            result = self.surface.call(name, params, timeout=min(remaining, self.call_timeout),
                                       chain=self.chain)
        except PendingApproval as exc:
            waiting_version = exc.details.get("version")
            self.waiting = {
                "tool": name, "version": waiting_version, "call": index + 1,
                "approve_command": exc.details.get("approve_command"),
                "params": params, "key": key,
                "ms": round((time.perf_counter() - started) * 1000, 3),
            }
            self._log.info("run.waiting", tool=name, version=waiting_version, call=index + 1)
            raise Suspended(self.waiting) from None
        except DyntoolsError as exc:
            error = {"reason": exc.reason, "message": exc.message}
            return self._record(name, params, key, version, started, None, error)
        return self._record(name, params, key, version, started, result, None)

    def _record(self, name: str, params: dict[str, Any], key: str, version: int | None,
                started: float, result: dict[str, Any] | None,
                error: dict[str, Any] | None) -> dict[str, Any]:
        ms = round((time.perf_counter() - started) * 1000, 3)
        outcome = OK if error is None else str(error["reason"])
        call = CallRecord(name, params, key, outcome, version, ms, self.segment, result, error)
        self.calls.append(call)
        self._log.info("run.tool_call", tool=name, version=version, outcome=outcome, ms=ms,
                       call=len(self.calls))
        return call.answer()

    def reached(self) -> bool:
        """Whether the segment got to the call its run waited at (a resume must)."""
        return self.waited is None or self.live_at is not None

    def _violation(self, message: str) -> CapabilityViolation:
        return CapabilityViolation(message, run_id=self.run_id, capability="tools")
