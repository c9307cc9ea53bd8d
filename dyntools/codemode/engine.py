"""`run_code` and `resume_run`: a script gated, run, kept, and continued after a decision.

Pausing is a replay. When a script calls a tool that waits for a decision, its worker is
ended and the run is kept with every call it completed (tool, canonical params, the answer
it got). `resume_run`, in this process or any other, gates the kept source again under the
policy of now (its SHA-256 must still be the one recorded), starts a fresh worker and runs the
script from the top: its first calls are answered from the record, each checked against it
(the k-th call must be the recorded tool with the recorded canonical params, else the run
ends with `replay_diverged`), so no completed call runs twice; the call it waited at then
runs for real (a tool approved since is called, one rejected raises `host.ToolError` in the
script) and the script goes on. The output the replayed part prints is not shown again, and
the run's limits hold over all of its segments.

Why a replay, not a worker kept waiting: a decision takes minutes or days, while the caller
that ran the script (a CLI, an MCP session, an agent loop) ends; a waiting worker would tie up
a locked-down process per waiting run, could not be resumed from another process, and would
be lost with its host. A replay needs only the record, costs one worker start and the
script's own code up to the wait, and its record is also what `promote` turns into examples.
Its price: a script must reach the call it waited at the same way again. Its tool calls are
replayed exactly; what else it depends on (the time, random numbers) may differ, and a
script that then calls differently ends with `replay_diverged` instead of mixing two runs.
"""

from __future__ import annotations

import ast
import contextlib
import json
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from dyntools.base.log import get_logger
from dyntools.codemode.host import ScriptHost, Suspended, ToolSurface
from dyntools.codemode.limits import RunLimits
from dyntools.codemode.outcome import RunOutcome, outcome_of
from dyntools.codemode.record import ERROR, OK, REFUSED, WAITING, RunRecord, now_text
from dyntools.codemode.store import RUNS_DIR, RunStore
from dyntools.errors import (
    BadResult,
    DyntoolsError,
    GateRejected,
    PersistError,
    RunLimitExceeded,
    RunTampered,
    SandboxError,
    SandboxTimeout,
    ToolRuntimeError,
    UnknownTool,
    UsageError,
)

if TYPE_CHECKING:
    from dyntools.gate.findings import GateReport
    from dyntools.gate.policy import Policy
    from dyntools.pipeline.toolmeta import Tool
    from dyntools.registry.core import Registry
    from dyntools.registry.records import VersionRecord
    from dyntools.sandbox.limits import SandboxLimits

REGISTRY_SURFACE, CATALOG_SURFACE = "registry", "catalog"
MAX_INPUTS_BYTES = 4 * 1024 * 1024
# Seconds a resumed worker may spend on its replayed prefix beyond what the prefix took
# the first time (a worker's start, a slower moment of the machine).
REPLAY_SLACK_S = 5.0


class CodePipeline(Protocol):
    """What code mode uses of a `Dyntools`."""

    registry: Registry
    policy: Policy
    limits: SandboxLimits
    require_layers: frozenset[str]
    allow_weaker_sandbox: bool

    def call(self, name: str, params: dict[str, Any], *, timeout: float | None = None,
             chain: tuple[str, ...] = (), read_only: bool = False) -> dict[str, Any]: ...

    def tool(self, name: str) -> Tool | None: ...

    def pending_version(self, name: str) -> VersionRecord | None: ...


def run_store(pipeline: CodePipeline) -> RunStore:
    return RunStore(pipeline.registry.root / RUNS_DIR)


def run_code(pipeline: CodePipeline, source: str | bytes, inputs: Mapping[str, Any] | None,
             limits: RunLimits | Mapping[str, Any] | None,
             tools: ToolSurface | None = None) -> RunOutcome:
    """Gate `source` as a script and run it once over `tools` (default: the registry's
    current tools); keep the run. Raises UsageError for bad arguments (nothing is kept);
    every other end is the outcome's status."""
    from dyntools.gate import check_script

    run_limits = RunLimits.from_value(limits)
    data = _checked_inputs(inputs)
    if not isinstance(source, str | bytes):
        raise UsageError(f"the script must be text, got {type(source).__name__}")
    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else bytes(source)
    cap = pipeline.policy.limits.max_bytes
    text = raw[:cap + 1].decode("utf-8", "replace")
    report = check_script(raw, pipeline.policy, path="<script>")
    record = RunRecord.new(text, report.sha256, report.policy_digest, data,
                           run_limits.as_dict(), _surface_name(pipeline, tools))
    log = get_logger("codemode", run_id=record.run_id)
    log.info("run.started", sha256=record.sha256, surface=record.surface,
             limits=record.limits)
    if not report.accepted:
        return _refused(pipeline, record, report)
    return _segment(pipeline, record, tools, run_limits, waited=None)


def resume_run(pipeline: CodePipeline, run_id: str, tools: ToolSurface | None = None,
               timeout: float | None = None) -> RunOutcome:
    """Continue a waiting run after a decision (see the module docstring). UnknownRun for an
    id that is not kept; UsageError for a run that is not waiting or is being resumed.
    `timeout` caps this resume's seconds; it never extends the time the run has left."""
    from dyntools.gate import check_script

    cap = RunLimits(timeout=timeout).timeout if timeout is not None else None
    store = run_store(pipeline)
    with store.claim(run_id):
        record = store.load(run_id)
        if record.status != WAITING or record.waiting is None:
            raise UsageError(f"run {run_id} is {record.status}, not waiting: there is nothing "
                             "to resume", run_id=run_id, status=record.status)
        _refuse_unreachable(pipeline, tools, record)
        log = get_logger("codemode", run_id=run_id)
        raw = record.source.encode("utf-8", "surrogatepass")
        report = check_script(raw, pipeline.policy, path="<script>")
        if report.sha256 != record.sha256:
            raise RunTampered(f"run {run_id}'s kept source is not the source it ran (SHA-256 "
                                f"{report.sha256[:12]} now, {record.sha256[:12]} recorded): "
                                "refused", run_id=run_id)
        log.info("run.resumed", segment=record.segments + 1, tool=record.waiting.get("tool"))
        record.policy_digest = report.policy_digest
        if not report.accepted:
            return _refused(pipeline, record, report)
        waiting = record.waiting
        tool = str(waiting.get("tool"))
        if _still_waiting(pipeline, tools, tool):
            log.info("run.still_waiting", tool=tool)
            return outcome_of(record, "")
        run_limits = RunLimits.from_value(record.limits)
        # From here calls run: this waiting record is never resumed again (progress.py).
        store.begin_resume(record)
        return _segment(pipeline, record, tools, run_limits,
                        waited=(tool, str(waiting.get("key"))), cap=cap)


# ------------------------------------------------------------------------------- segments


def _segment(pipeline: CodePipeline, record: RunRecord, tools: ToolSurface | None,
             limits: RunLimits, *, waited: tuple[str, str] | None,
             cap: float | None = None) -> RunOutcome:
    """Run the script once (a first run, or a resume that replays `record.calls`); `cap`:
    the most seconds of the run's remaining time this segment may use."""
    from dyntools.codemode.runner import run_in_worker
    from dyntools.codemode.wrap import wrap_script
    from dyntools.sandbox.limits import SandboxLimits

    surface: ToolSurface = tools if tools is not None else pipeline
    budget = limits.timeout - record.used_ms / 1000
    if cap is not None:
        budget = min(budget, cap)
    record.segments += 1
    if budget <= 0:
        return _ended(pipeline, record, None, "", SandboxTimeout(
            f"the run has used its timeout of {limits.timeout:g} s", run_id=record.run_id,
            timeout_s=limits.timeout))
    replay = record.used_ms / 1000 + REPLAY_SLACK_S if waited is not None else 0.0
    host = ScriptHost(surface=surface, run_id=record.run_id, segment=record.segments,
                      recorded=list(record.calls), max_tool_calls=limits.max_tool_calls,
                      max_depth=limits.max_depth, call_timeout=pipeline.limits.timeout_s,
                      version_of=_versions(pipeline, tools), budget_s=budget, waited=waited)
    sandbox = SandboxLimits(timeout_s=min(budget + replay, 86_400.0),
                            memory_mb=pipeline.limits.memory_mb,
                            max_output_bytes=limits.max_output,
                            startup_timeout_s=pipeline.limits.startup_timeout_s)
    tree = wrap_script(ast.parse(record.source, filename="<script>"))
    store = run_store(pipeline)
    try:
        outcome = run_in_worker(
            source=record.source, tree=tree, inputs=record.inputs, host=host,
            path=store.folder / f"{record.run_id}.py",
            module_name=f"dyntools_script_{record.run_id}", policy=pipeline.policy,
            limits=sandbox, require_layers=pipeline.require_layers,
            allow_weaker_sandbox=pipeline.allow_weaker_sandbox)
    except Suspended:
        return _waiting(pipeline, record, host)
    except Exception as unexpected:  # a bug or the OS (no temporary folder): the run ends
        if isinstance(unexpected, DyntoolsError):
            exc = unexpected
        else:
            get_logger("codemode", run_id=record.run_id).error(
                "run.internal_error", error=repr(unexpected), exc_info=True)
            exc = SandboxError(f"the run could not go on: {type(unexpected).__name__}: "
                               f"{unexpected}", run_id=record.run_id)
        output = str(exc.details.pop("output", "")) or "".join(host.chunks)
        if host.overran:  # the resume's watch ended its worker (runner.py)
            exc = SandboxTimeout(f"the run has used its timeout of {limits.timeout:g} s (or "
                                 "this resume's)", run_id=record.run_id,
                                 timeout_s=limits.timeout)
        _charge(record, host)
        record.calls = host.calls
        if isinstance(exc, ToolRuntimeError | BadResult) and host.call_started is not None \
                and not host.reached():
            exc = _diverged(record, host, exc)  # it ended on its own before the wait
        return _ended(pipeline, record, None, host.live_output(output), exc)
    _charge(record, host)
    record.calls = host.calls
    if not host.reached():
        return _ended(pipeline, record, None, host.live_output(outcome.output),
                      _diverged(record, host, None))
    return _ended(pipeline, record, outcome.result.get("result"),
                  host.live_output(outcome.output), None)


def _charge(record: RunRecord, host: ScriptHost) -> None:
    record.used_ms = round(record.used_ms + host.charged_s(time.monotonic()) * 1000, 3)


def _diverged(record: RunRecord, host: ScriptHost, cause: DyntoolsError | None) -> DyntoolsError:
    from dyntools.errors import ReplayDiverged

    waited = record.waiting or {}
    why = f" ({cause.reason}: {cause.message})" if cause is not None else ""
    return ReplayDiverged(
        f"the resumed script ended after {len(host.calls)} tool call(s), before the call "
        f"{waited.get('call')} ({waited.get('tool')}) its run waited at{why}: the recorded "
        "results no longer apply (start it again with dyntools run)", run_id=record.run_id)


def _waiting(pipeline: CodePipeline, record: RunRecord, host: ScriptHost) -> RunOutcome:
    _charge(record, host)
    record.calls = host.calls
    record.status = WAITING
    record.waiting = dict(host.waiting or {})
    record.error = None
    output = host.live_output("".join(host.chunks))
    record.output = _capped(record.output + output, record.limits)
    record.updated = now_text()
    store = run_store(pipeline)
    log = get_logger("codemode", run_id=record.run_id)
    try:
        store.save(record)
    except (PersistError, RunLimitExceeded) as exc:
        # A run that cannot be kept cannot be resumed: it ends here instead of waiting.
        record.status, record.waiting = ERROR, None
        record.error = exc.as_dict()
        log.info("run.finished", status=ERROR, reason=exc.reason, calls=len(record.calls))
        kept = _keep(store, record)
        return outcome_of(record, output, exc, kept=kept)
    log.info("run.finished", status=WAITING, tool=record.waiting.get("tool"),
             version=record.waiting.get("version"), calls=len(record.calls))
    return outcome_of(record, output)


def _ended(pipeline: CodePipeline, record: RunRecord, result: Any, output: str,
           error: DyntoolsError | None) -> RunOutcome:
    record.status = OK if error is None else ERROR
    record.result = result
    record.waiting = None
    if error is not None:
        body = error.as_dict()
        body["details"] = {key: value for key, value in body["details"].items()
                           if key != "output"}
        record.error = body
    else:
        record.error = None
    record.output = _capped(record.output + output, record.limits)
    record.updated = now_text()
    get_logger("codemode", run_id=record.run_id).info(
        "run.finished", status=record.status, reason=error.reason if error else None,
        calls=len(record.calls), ms=record.used_ms)
    kept = _keep(run_store(pipeline), record)
    return outcome_of(record, output, error, kept=kept)


def _refused(pipeline: CodePipeline, record: RunRecord, report: GateReport) -> RunOutcome:
    record.status = REFUSED
    record.findings = [f.as_dict() for f in report.findings]
    record.waiting = None
    record.updated = now_text()
    get_logger("codemode", run_id=record.run_id).info(
        "run.finished", status=REFUSED, codes=sorted(report.codes))
    kept = _keep(run_store(pipeline), record)
    return outcome_of(record, "", GateRejected(report), kept=kept)


def _keep(store: RunStore, record: RunRecord) -> bool:
    """Keep a finished run; one that cannot be kept (a read-only registry) is still the
    caller's outcome, with a warning in the log."""
    try:
        store.save(record)
    except (PersistError, RunLimitExceeded) as exc:
        get_logger("codemode", run_id=record.run_id).warning(
            "run.not_kept", reason=exc.reason, message=exc.message)
        return False
    return True


def _capped(text: str, limits: Mapping[str, Any]) -> str:
    cap = limits.get("max_output")
    return text[:cap] if isinstance(cap, int) and cap > 0 else text


# --------------------------------------------------------------------------------- inputs


def _checked_inputs(inputs: Mapping[str, Any] | None) -> dict[str, Any]:
    """`inputs` as plain JSON data (a copy), or UsageError."""
    if inputs is None:
        return {}
    if not isinstance(inputs, Mapping):
        raise UsageError(f"inputs must be a JSON object, got {type(inputs).__name__}")
    try:
        text = json.dumps(dict(inputs), allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise UsageError(f"inputs are not JSON data: {exc}") from None
    if len(text) > MAX_INPUTS_BYTES:
        raise UsageError(f"inputs are {len(text)} characters of JSON; at most "
                         f"{MAX_INPUTS_BYTES}")
    value: dict[str, Any] = json.loads(text)
    return value


# -------------------------------------------------------------------------------- surface


def _surface_name(pipeline: CodePipeline, tools: ToolSurface | None) -> str:
    return REGISTRY_SURFACE if tools is None or tools is pipeline else CATALOG_SURFACE


def _versions(pipeline: CodePipeline,
              tools: ToolSurface | None) -> Callable[[str], int | None]:
    """The version a call of each tool reaches now (None for a hand-written tool)."""
    getter = getattr(tools, "get", None) if tools is not None and tools is not pipeline \
        else None
    lookup: Callable[[str], Tool | None] = getter if callable(getter) else pipeline.tool

    def version_of(name: str) -> int | None:
        try:
            tool = lookup(name)
        except DyntoolsError:
            return None
        return tool.version if tool is not None else None

    return version_of


def _still_waiting(pipeline: CodePipeline, tools: ToolSurface | None, name: str) -> bool:
    """Whether a call of `name` would still wait: nothing serves it, and a pending version
    of it is still there (a catalog's hand-written tool of that name serves it)."""
    getter = getattr(tools, "get", None) if tools is not None and tools is not pipeline \
        else None
    try:
        if callable(getter) and getter(name) is not None:
            return False
        # A decision made by another process (a CLI's approve while a server runs): read
        # the tool's state from disk again, as `ensure` does before it looks.
        with contextlib.suppress(UnknownTool):
            pipeline.registry.refresh(name)
        if pipeline.registry.current(name) is not None:
            return False
        return pipeline.pending_version(name) is not None
    except DyntoolsError:
        return False


def _refuse_unreachable(pipeline: CodePipeline, tools: ToolSurface | None,
                        record: RunRecord) -> None:
    """UsageError when the run's recorded calls answered from tools this caller's surface
    does not serve now. Threat: a replay hands the script the recorded answers; a run made
    through a wider surface (an MCP server's hand-written tools) and resumed through a
    narrower one (the CLI, another server) would give its caller those tools' data, which
    it could not get by calling them directly. A call that was answered `unknown_tool`
    carried no tool's data and is not counted."""
    getter = getattr(tools, "get", None) if tools is not None and tools is not pipeline \
        else None
    lookup: Callable[[str], Tool | None] = getter if callable(getter) else pipeline.tool
    missing: list[str] = []
    for name in sorted({call.tool for call in record.calls if call.outcome != "unknown_tool"}):
        try:
            served = lookup(name) is not None
        except DyntoolsError:
            served = False
        if not served:
            missing.append(name)
    if missing:
        raise UsageError(
            f"run {record.run_id} was answered by tool(s) this caller does not serve now "
            f"({', '.join(missing)}): its replay would hand over their results; resume it "
            "through the surface that ran it, or run the script again here",
            run_id=record.run_id, tools=missing)


def kept_runs(pipeline: CodePipeline) -> list[RunRecord]:
    """Every kept run of the registry, newest first."""
    return run_store(pipeline).records()


def load_run(pipeline: CodePipeline, run_id: str) -> RunRecord:
    return run_store(pipeline).load(run_id)


__all__ = ["CodePipeline", "kept_runs", "load_run", "resume_run", "run_code", "run_store"]
