"""How a script run (or one resume of it) ended, as callers read it.

    outcome.status        "ok", "waiting", "refused" or "error"
    outcome.as_dict()     the JSON of `dyntools run --json`, `resume`, the MCP tools and the
                          adapters: status, run_id, result, output, trace (and findings,
                          error or waiting when they apply)
    outcome.error         the DyntoolsError behind "error" and "refused" (for the CLI's exit
                          code), else None
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dyntools.codemode.record import ERROR, OK, REFUSED, WAITING, RunRecord
from dyntools.errors import DyntoolsError


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """One segment's end. `output` is what this segment printed that the caller has not been
    shown yet (a resume leaves out what its replayed prefix printed); `trace` is the whole
    run's, one entry per tool call (tool, version, outcome, ms, segment)."""

    status: str
    run_id: str
    result: Any = None
    output: str = ""
    trace: tuple[dict[str, Any], ...] = ()
    findings: tuple[dict[str, Any], ...] = ()
    waiting: dict[str, Any] | None = None
    error: DyntoolsError | None = field(default=None, compare=False)
    kept: bool = True

    @property
    def ok(self) -> bool:
        return self.status == OK

    def as_dict(self) -> dict[str, Any]:
        value: dict[str, Any] = {"status": self.status, "run_id": self.run_id,
                                 "result": self.result, "output": self.output,
                                 "trace": [dict(entry) for entry in self.trace]}
        if self.status == REFUSED:
            value["findings"] = [dict(f) for f in self.findings]
        if self.status == WAITING and self.waiting is not None:
            value["waiting"] = {key: self.waiting.get(key) for key in
                                ("tool", "version", "call", "approve_command")}
            value["resume_command"] = f"dyntools resume {self.run_id}"
        if self.error is not None and self.status == ERROR:
            value["error"] = self.error.as_dict()
        if not self.kept:
            value["kept"] = False
        return value


def outcome_of(record: RunRecord, output: str, error: DyntoolsError | None = None, *,
               kept: bool = True) -> RunOutcome:
    return RunOutcome(status=record.status, run_id=record.run_id,
                      result=record.result if record.status == OK else None, output=output,
                      trace=tuple(record.trace()), findings=tuple(record.findings),
                      waiting=record.waiting, error=error, kept=kept)
