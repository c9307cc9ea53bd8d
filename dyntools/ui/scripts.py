"""What the Scripts views show of the registry's kept script runs (dyntools/codemode/).

    rows = script_rows(ui)                 # /scripts: every kept run, newest first
    view = script_view(ui, run_id)         # /scripts/RUN_ID: a run as evidence, then decisions

A run's source is shown with the gate's findings run now under the page's policy (the same
rules `dyntools resume` applies), the recorded findings of a refused run beside them; its
inputs, result, output and tool-call trace; what it waits for, with that version's approve
and reject (the page's own decision endpoints, which verify exactly as `dyntools approve`
does); and the version it was promoted to. Everything a run holds is the script's or a tool's
text: templates show it through `visible`, never as markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dyntools.errors import DyntoolsError

if TYPE_CHECKING:
    from dyntools.codemode.record import RunRecord
    from dyntools.ui.state import UiState

MAX_RUNS_SHOWN = 200
MAX_SHOWN_CHARS = 20_000  # of inputs, a result, an output, a call's params shown on the page


@dataclass(frozen=True, slots=True)
class ScriptRow:
    run_id: str
    status: str
    created: str
    updated: str
    tools: tuple[str, ...]
    calls: int
    waiting: str | None
    promoted: str | None
    promoted_href: str | None


@dataclass(frozen=True, slots=True)
class WaitingView:
    tool: str
    version: int
    call: int | None
    status: str  # the waiting version's status now: pending, approved, rejected, ...
    sha256_now: str | None  # what an approval from this page names (the bytes shown)
    decidable: bool
    href: str


@dataclass(frozen=True, slots=True)
class ScriptView:
    run_id: str
    record: RunRecord
    findings: tuple[dict[str, Any], ...]  # the gate on the kept source, now
    hash_ok: bool
    inputs: str
    result: str
    output: str
    trace: tuple[dict[str, Any], ...]
    waiting: WaitingView | None
    promoted_href: str | None
    others: tuple[tuple[str, str], ...] = field(default=())


def _shown(value: Any) -> str:
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "\n[...]"


def script_rows(ui: UiState) -> list[ScriptRow]:
    rows: list[ScriptRow] = []
    for record in ui.dyntools.runs()[:MAX_RUNS_SHOWN]:
        promoted = record.promoted or {}
        tool, version = promoted.get("tool"), promoted.get("version")
        waiting = record.waiting or {}
        rows.append(ScriptRow(
            run_id=record.run_id, status=record.status, created=record.created,
            updated=record.updated, tools=tuple(record.tools_called()), calls=len(record.calls),
            waiting=(f"{waiting.get('tool')} v{waiting.get('version')}"
                     if record.waiting else None),
            promoted=f"{tool} v{version}" if tool else None,
            promoted_href=_href(tool, version)))
    return rows


def script_view(ui: UiState, run_id: str) -> ScriptView:
    """Run `run_id` as the page shows it (UnknownRun when it is not kept)."""
    from dyntools.gate import check_script

    record = ui.dyntools.run_record(run_id)
    raw = record.source.encode("utf-8", "surrogatepass")
    report = check_script(raw, ui.registry.policy, path="<script>")
    promoted = record.promoted or {}
    others = tuple((r.run_id, r.status) for r in ui.dyntools.runs()[:30])
    return ScriptView(
        run_id=record.run_id, record=record,
        findings=tuple(f.as_dict() for f in report.findings),
        hash_ok=report.sha256 == record.sha256,
        inputs=_shown(record.inputs), result=_shown(record.result),
        output=record.output[:MAX_SHOWN_CHARS],
        trace=tuple({**entry, "href": _href(entry.get("tool"), entry.get("version"))}
                    for entry in record.trace()),
        waiting=_waiting(ui, record),
        promoted_href=_href(promoted.get("tool"), promoted.get("version")),
        others=others)


def _waiting(ui: UiState, record: RunRecord) -> WaitingView | None:
    waiting = record.waiting
    if record.status != "waiting" or not waiting:
        return None
    tool, version = waiting.get("tool"), waiting.get("version")
    from dyntools.base.toolname import tool_name_problem

    if not isinstance(tool, str) or tool_name_problem(tool) is not None or \
            not isinstance(version, int) or isinstance(version, bool):
        return None
    status, sha256_now = "unknown", None
    try:
        state = ui.registry.tool(tool)
        version_record = state.records.get(version)
        if version_record is not None:
            status = version_record.status
            from dyntools.gate.findings import sha256_hex

            sha256_now = sha256_hex(ui.registry.read_recorded(tool, version))
    except (DyntoolsError, OSError):
        pass
    return WaitingView(tool=tool, version=version, call=waiting.get("call"), status=status,
                       sha256_now=sha256_now, decidable=status == "pending",
                       href=f"/tools/{tool}/v/{version}")


def _href(tool: Any, version: Any) -> str | None:
    from dyntools.base.toolname import tool_name_problem

    if not isinstance(tool, str) or tool_name_problem(tool) is not None:
        return None
    if isinstance(version, int) and not isinstance(version, bool):
        return f"/tools/{tool}/v/{version}"
    return f"/tools/{tool}"
