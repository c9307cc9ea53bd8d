"""A failure at run time as a finding: the shape the gate's findings have, so a generator gets
a call that went wrong exactly as it gets a gate rejection (`LINE:COL: CODE message`).

    findings_of(outcome, source)      # one verification outcome that failed -> Findings
    error_finding(error, source)      # a DyntoolsError of a call -> a Finding

Codes are a family of their own, DR (run time), never the gate's DT: a gate finding says the
file may not run; these say what happened when it ran. They are stable, like the gate's:

    DR101 wrong-result        the tool returned a result other than the expected one
    DR102 runtime-error       the tool raised (the line is where, in the tool file)
    DR103 bad-result          the result is not a JSON object, or too large
    DR104 invalid-params      the params do not match the tool's PARAMS
    DR105 unrecorded-request  a host request no recorded exchange answers (or one never made)
    DR201 capability-refused  a host request the declaration or the operator's policy refuses
    DR202 time-limit          the call ran past its time limit (or the verification budget)
    DR203 memory-limit        the call ran out of memory
    DR204 sandbox-violation   a runtime guard or an OS layer refused an operation
    DR205 worker-crashed      the worker died
    DR206 compile-error       the file does not compile in the sandbox
    DR901 failed              anything else

The line is the tool file's: the innermost line of the tool's own traceback for an error, else
the line of `def run` (a wrong result has no line of its own). Tool-controlled text (results,
messages) is cut to SHOWN_CHARS; it goes to a model, never unescaped to a terminal or a page.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dyntools.gate.findings import Finding

if TYPE_CHECKING:
    from dyntools.errors import DyntoolsError
    from dyntools.pipeline.verify import ExampleOutcome

SHOWN_CHARS = 600

RUNTIME_RULES: Mapping[str, tuple[str, str]] = {
    "DR101": ("wrong-result", "The tool returned a result other than the expected one."),
    "DR102": ("runtime-error", "The tool raised an exception."),
    "DR103": ("bad-result", "The result is not a JSON object, or it is too large."),
    "DR104": ("invalid-params", "The params do not match the tool's PARAMS."),
    "DR105": ("unrecorded-request", "A host request that no recorded exchange answers, or a "
                                    "recorded exchange the tool never requested."),
    "DR201": ("capability-refused", "A host request the tool's CAPABILITIES or the operator's "
                                    "policy does not grant."),
    "DR202": ("time-limit", "The call ran past its time limit."),
    "DR203": ("memory-limit", "The call ran out of memory."),
    "DR204": ("sandbox-violation", "A runtime guard or an OS layer refused an operation."),
    "DR205": ("worker-crashed", "The sandbox worker died during the call."),
    "DR206": ("compile-error", "The file does not compile in the sandbox."),
    "DR901": ("failed", "The call failed for another reason."),
}

# error reason -> code
_BY_REASON = {
    "runtime_error": "DR102",
    "bad_result": "DR103",
    "invalid_params": "DR104",
    "unrecorded_request": "DR105",
    "timeout": "DR202",
    "verification_timeout": "DR202",
    "memory_limit": "DR203",
    "sandbox_violation": "DR204",
    "worker_crashed": "DR205",
    "compile_error": "DR206",
}


def run_line(source: str) -> tuple[int, int]:
    """(line, col) of `def run` in `source` (1-based; (1, 1) when it cannot be found). The
    text is parsed, never run; a file the gate accepted always parses."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return 1, 1
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name == "run":
            return node.lineno, node.col_offset + 1
    return 1, 1


def shown(value: Any) -> str:
    """`value` as compact JSON, cut to SHOWN_CHARS."""
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(type(value).__name__)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def _code_for(error: Mapping[str, Any]) -> str:
    reason = str(error.get("reason") or "")
    if reason == "sandbox_violation" and error.get("capability") is not None:
        return "DR201"
    message = str(error.get("message") or "")
    if reason == "sandbox_violation" and ("CAPABILITIES" in message or "policy" in message):
        return "DR201"
    return _BY_REASON.get(reason, "DR901")


def _trace_line(trace: Any) -> tuple[int, int] | None:
    """The innermost line of the tool's own traceback (the worker's `trace` frames)."""
    if not isinstance(trace, list):
        return None
    for frame in reversed(trace):
        if (isinstance(frame, list | tuple) and frame and type(frame[0]) is int
                and frame[0] > 0):
            return frame[0], 1
    return None


def error_finding(error: DyntoolsError | Mapping[str, Any], source: str,
                  params: Mapping[str, Any], expected: Mapping[str, Any] | None) -> Finding:
    """A call's failure (an error, or its `as_dict()` / a verification outcome's error) as
    one finding on the tool file."""
    if isinstance(error, Mapping):
        body: Mapping[str, Any] = error
        # a verification outcome's error holds `trace` itself; an error's as_dict in details
        details = error.get("details") if isinstance(error.get("details"), Mapping) else error
    else:
        body = {"reason": error.reason, "message": error.message, **{
            k: v for k, v in error.details.items() if k == "capability"}}
        details = error.details
    assert isinstance(details, Mapping)
    code = _code_for({**body, **({"capability": details.get("capability")}
                                 if details.get("capability") is not None else {})})
    line, col = _trace_line(details.get("trace")) or run_line(source)
    message = str(body.get("message") or body.get("reason") or "failed")
    if len(message) > SHOWN_CHARS:
        message = message[:SHOWN_CHARS] + "..."
    text = f"run({shown(dict(params))}) failed with {body.get('reason')}: {message}"
    if expected is not None:
        text += f"; expected {shown(dict(expected))}"
    return Finding(line, col, code, text)


def wrong_result_finding(source: str, params: Mapping[str, Any], expected: Mapping[str, Any],
                         actual: Any, origin: str | None = None) -> Finding:
    line, col = run_line(source)
    where = ("" if not origin else " (the counterexample)" if origin == "counterexample"
             else f" (a {origin} example)")
    return Finding(line, col, "DR101", f"run({shown(dict(params))}) returned {shown(actual)}; "
                                       f"expected {shown(dict(expected))}{where}")


def findings_of(outcome: ExampleOutcome, source: str) -> list[Finding]:
    """The findings of one verification outcome that did not pass (none for one that did or
    was not run)."""
    from dyntools.pipeline.verify import ERROR, FAILED

    example = outcome.example
    if outcome.status == FAILED:
        return [wrong_result_finding(source, example.params, example.result, outcome.actual,
                                     example.origin)]
    if outcome.status == ERROR and outcome.error is not None:
        return [error_finding(outcome.error, source, example.params, example.result)]
    return []


def finding_dict(finding: Finding) -> dict[str, Any]:
    """A runtime finding as JSON (a gate Finding's `as_dict` knows only the gate's codes)."""
    rule = RUNTIME_RULES.get(finding.code, ("failed", ""))[0]
    return {"code": finding.code, "family": "runtime", "rule": rule, "line": finding.line,
            "col": finding.col, "message": finding.message}
