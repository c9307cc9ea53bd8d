"""What a script run keeps: its source, inputs, limits, every tool call with its outcome,
what it printed, how it ended, and what it waits for or was promoted to.

    record = RunRecord.new(source, sha256, policy_digest, inputs, limits, surface)
    record.as_dict() / RunRecord.from_dict(data)     # the JSON kept in <registry>/.runs/

A record read back from disk is checked field by field (`from_dict` raises ValueError on
anything it does not expect): the folder is the registry's, but a record is data, never
trusted to be well formed.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from hashlib import sha256
from typing import Any

OK, WAITING, REFUSED, ERROR, RUNNING = "ok", "waiting", "refused", "error", "running"
STATUSES = (OK, WAITING, REFUSED, ERROR, RUNNING)
# A call's outcome is OK, WAITING or the reason of the error the tool ended in.
RUN_ID_CHARS = 16  # hex digits of a run id
MAX_TRACE_PARAMS = 2000  # characters of a call's params shown in a trace


def new_run_id() -> str:
    return secrets.token_hex(RUN_ID_CHARS // 2)


def run_id_problem(value: object) -> str | None:
    """Why `value` is not a run id (16 lowercase hex digits), or None: a run id names a file
    under `.runs/`, so nothing else ever reaches a path."""
    if not isinstance(value, str):
        return f"a run id is a string, got {type(value).__name__}"
    if len(value) != RUN_ID_CHARS or any(c not in "0123456789abcdef" for c in value):
        return f"{value[:40]!r} is not a run id ({RUN_ID_CHARS} lowercase hex digits)"
    return None


def call_key(tool: str, params: Any) -> str:
    """The SHA-256 of (tool, params) as canonical JSON: what a replayed call must equal.
    Raises ValueError (or RecursionError) for params that are not JSON data."""
    text = json.dumps([tool, params], sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False)
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def now_text() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass(slots=True)
class CallRecord:
    """One tool call the script made. `outcome` is "ok" or the reason of the tool's error;
    `result` (ok) and `error` ({"reason", "message"}) are what the script was answered,
    redacted as the broker redacts (no secret of the tool's requests reaches them)."""

    tool: str
    params: dict[str, Any]
    key: str
    outcome: str
    version: int | None
    ms: float
    segment: int
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    def answer(self) -> dict[str, Any]:
        """The host's answer to the worker, as first given."""
        if self.outcome == OK:
            return {"ok": self.result}
        error = self.error or {}
        return {"error": {"kind": "tool", "reason": str(error.get("reason", self.outcome)),
                          "message": str(error.get("message", ""))}}

    def trace(self) -> dict[str, Any]:
        return {"tool": self.tool, "version": self.version, "outcome": self.outcome,
                "ms": self.ms, "segment": self.segment}

    def as_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "params": self.params, "key": self.key,
                "outcome": self.outcome, "version": self.version, "ms": self.ms,
                "segment": self.segment, "result": self.result, "error": self.error}

    @classmethod
    def from_dict(cls, data: Any) -> CallRecord:
        if not isinstance(data, dict):
            raise ValueError("a call is not an object")
        tool, params, key = data.get("tool"), data.get("params"), data.get("key")
        outcome, version, ms = data.get("outcome"), data.get("version"), data.get("ms")
        result, error, segment = data.get("result"), data.get("error"), data.get("segment", 1)
        if not (isinstance(tool, str) and isinstance(params, dict) and isinstance(key, str)
                and isinstance(outcome, str) and _int_or_none(version)
                and isinstance(ms, int | float) and isinstance(segment, int)
                and (result is None or isinstance(result, dict))
                and (error is None or isinstance(error, dict))):
            raise ValueError("a call has a field of the wrong kind")
        if outcome == OK and result is None:
            raise ValueError("an ok call has no result")
        return cls(tool, params, key, outcome, version, float(ms), segment, result, error)


def _int_or_none(value: object) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool))


@dataclass(slots=True)
class RunRecord:
    """One script run, as kept. `output` is everything it printed so far (capped by its
    limits); `waiting` is {"tool", "version", "call", "approve_command"} while it waits;
    `promoted` is {"tool", "version", "sha256", "status"} once it became a tool."""

    run_id: str
    status: str
    created: str
    updated: str
    source: str
    sha256: str
    policy_digest: str
    inputs: dict[str, Any]
    limits: dict[str, Any]
    surface: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    output: str = ""
    result: Any = None
    error: dict[str, Any] | None = None
    waiting: dict[str, Any] | None = None
    segments: int = 0
    used_ms: float = 0.0
    promoted: dict[str, Any] | None = None
    # Set when the record was too large to keep whole: the call results were dropped.
    trimmed: bool = False
    # One more at each save: how far the run has got (progress.py refuses an older record).
    seq: int = 0

    @classmethod
    def new(cls, source: str, digest: str, policy_digest: str, inputs: dict[str, Any],
            limits: dict[str, Any], surface: str) -> RunRecord:
        stamp = now_text()
        return cls(new_run_id(), RUNNING, stamp, stamp, source, digest, policy_digest, inputs,
                   limits, surface)

    def trace(self) -> list[dict[str, Any]]:
        """One entry per tool call: tool, version, outcome, ms (and the segment: 1 for the
        first run, 2 after the first resume, ...); a waiting call last, if any."""
        entries = [call.trace() for call in self.calls]
        if self.waiting is not None:
            entries.append({"tool": self.waiting.get("tool"),
                            "version": self.waiting.get("version"), "outcome": WAITING,
                            "ms": self.waiting.get("ms", 0.0), "segment": self.segments})
        return entries

    def tools_called(self) -> list[str]:
        return sorted({call.tool for call in self.calls})

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "status": self.status, "created": self.created,
            "updated": self.updated, "source": self.source, "sha256": self.sha256,
            "policy_digest": self.policy_digest, "inputs": self.inputs, "limits": self.limits,
            "surface": self.surface, "findings": self.findings,
            "calls": [call.as_dict() for call in self.calls], "output": self.output,
            "result": self.result, "error": self.error, "waiting": self.waiting,
            "segments": self.segments, "used_ms": self.used_ms, "promoted": self.promoted,
            "trimmed": self.trimmed, "seq": self.seq,
        }

    @classmethod
    def from_dict(cls, data: Any) -> RunRecord:
        if not isinstance(data, dict):
            raise ValueError("the record is not an object")
        text = {key: data.get(key) for key in ("run_id", "status", "created", "updated",
                                                 "source", "sha256", "policy_digest",
                                                 "surface", "output")}
        if not all(isinstance(value, str) for value in text.values()):
            raise ValueError("a text field is missing or not text")
        if run_id_problem(text["run_id"]) is not None or text["status"] not in STATUSES:
            raise ValueError("the run id or the status is not one dyntools writes")
        inputs, limits, findings = data.get("inputs"), data.get("limits"), data.get("findings")
        calls, error = data.get("calls"), data.get("error")
        waiting, promoted = data.get("waiting"), data.get("promoted")
        segments, used_ms = data.get("segments"), data.get("used_ms")
        seq = data.get("seq", 0)
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise ValueError("seq is not a whole number")
        if not (isinstance(inputs, dict) and isinstance(limits, dict)
                and isinstance(findings, list) and isinstance(calls, list)
                and all(x is None or isinstance(x, dict) for x in (error, waiting, promoted))
                and isinstance(segments, int) and isinstance(used_ms, int | float)):
            raise ValueError("a field has the wrong kind")
        words: dict[str, str] = {key: str(value) for key, value in text.items()}
        return cls(
            run_id=words["run_id"], status=words["status"], created=words["created"],
            updated=words["updated"], source=words["source"], sha256=words["sha256"],
            policy_digest=words["policy_digest"], inputs=inputs, limits=limits,
            surface=words["surface"], findings=[f for f in findings if isinstance(f, dict)],
            calls=[CallRecord.from_dict(call) for call in calls], output=words["output"],
            result=data.get("result"), error=error, waiting=waiting, segments=segments,
            used_ms=float(used_ms), promoted=promoted, trimmed=bool(data.get("trimmed")),
            seq=seq,
        )
