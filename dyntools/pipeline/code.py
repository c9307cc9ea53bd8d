"""Code mode on `Dyntools`: run a script over the registry's tools, resume it after a decision,
promote it to a tool (the machinery is dyntools/codemode/, imported when first used)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dyntools.pipeline.core import PipelineCore

if TYPE_CHECKING:
    from dyntools.codemode.host import ToolSurface
    from dyntools.codemode.limits import RunLimits
    from dyntools.codemode.outcome import RunOutcome
    from dyntools.codemode.record import RunRecord
    from dyntools.pipeline.ensure import EnsureResult
    from dyntools.pipeline.events import StationListener
    from dyntools.pipeline.toolmeta import Tool


class CodeRunning(PipelineCore):
    """`Dyntools.run_code`, `resume_run`, `promote`, `runs` and `run_record`."""

    if TYPE_CHECKING:  # pipeline/calls.py's: what a script's call of a tool reaches
        def tool(self, name: str) -> Tool | None: ...

    def run_code(self, source: str | bytes, inputs: Mapping[str, Any] | None = None, *,
                 limits: RunLimits | Mapping[str, Any] | None = None,
                 tools: ToolSurface | None = None) -> RunOutcome:
        """Gate `source` as a script (dyntools/gate/script.py) and run it in a sandboxed
        worker with `inputs` as its `inputs`; keep the run under `<registry>/.runs/`.

        Its `tools.NAME(**params)` calls reach what a caller reaches directly: `tools` (a
        Catalog: the tools an adapter or the MCP server serves), else this registry's current
        tools, each in its own worker under its own capabilities. `limits`: a RunLimits, or
        a mapping of `timeout`, `max_tool_calls`, `max_depth`, `max_output`. Returns a
        RunOutcome whose status is "ok", "waiting" (a call reached a tool that only has a
        pending version: `resume_run` after a decision), "refused" (the gate's findings) or
        "error". Raises UsageError for bad arguments only."""
        from dyntools.codemode.engine import run_code

        return run_code(self, source, inputs, limits, tools)

    def resume_run(self, run_id: str, *, tools: ToolSurface | None = None,
                   timeout: float | None = None) -> RunOutcome:
        """Continue waiting run `run_id` (from this process or another): the script is gated
        again, its recorded calls are replayed (never run twice) and the call it waited at
        runs now. Still "waiting" while no decision has been made. `timeout` caps this
        resume's seconds (it never extends the time left of the run's own `timeout`)."""
        from dyntools.codemode.engine import resume_run

        return resume_run(self, run_id, tools, timeout)

    def promote(self, run_id: str, name: str, description: str | None = None, *,
                require_approval: bool = False, tools: ToolSurface | None = None,
                on_station: StationListener | None = None) -> EnsureResult:
        """Make tool `name` from run `run_id`, which ended ok with a JSON object (PARAMS from
        its inputs, EXAMPLES from the recorded run, CAPABILITIES for the tools it calls),
        through `ensure`: gated, verified, persisted under the approval policy. Raises
        PromotionRefused (why it cannot), and what `ensure` raises; `on_station` sees
        `ensure`'s stations."""
        from dyntools.codemode.promote import promote

        return promote(self, run_id, name, description, require_approval=require_approval,
                       tools=tools, on_station=on_station)

    def runs(self) -> list[RunRecord]:
        """Every kept script run of this registry, newest first."""
        from dyntools.codemode.engine import kept_runs

        return kept_runs(self)

    def run_record(self, run_id: str) -> RunRecord:
        """Kept run `run_id` (UnknownRun when it is not kept)."""
        from dyntools.codemode.engine import load_run

        return load_run(self, run_id)
