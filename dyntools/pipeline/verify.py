"""Verification: a version runs its examples in the sandbox and must reproduce them exactly.

    examples = collect_examples(own=meta.examples, caller=spec.examples, contract=passed_before)
    report = run_examples(pool.call, examples, tool="slugify_text")
    report.passed, report.failures, report.summary()

Four sources of examples, kept apart in the report so a reader sees which promise broke:
`tool` (the file's own EXAMPLES), `counterexample` (a failing call a repair turned into an
example: pipeline/repair.py), `caller` (what the caller of `ensure` supplied) and `contract`
(the examples the current version passed, and the tool's counterexamples: a new version
keeps the contract the tool already made). Identical examples are run once. Results are
compared as canonical JSON, so `1` and `1.0`, or `true` and `1`, differ just as they do for a
client parsing the answer.

A failing call (the tool raised, or returned something that is not a JSON object) is a failed
example with the error recorded. Errors that cost a worker (timeout, memory limit, crash, a
sandbox violation) stop the run: the remaining examples are reported as not run rather than
spending a time limit on each.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from dyntools.errors import BadResult, InvalidParams, SandboxError, ToolRuntimeError, UsageError
from dyntools.gate.capabilities import DeclarationError, Exchange, parse_exchanges

TOOL, CALLER, CONTRACT = "tool", "caller", "contract"
COUNTEREXAMPLE = "counterexample"
PASSED, FAILED, ERROR, NOT_RUN = "passed", "failed", "error", "not_run"
SHOWN_CHARS = 300

ToolCall = Callable[..., dict[str, Any]]  # (params) or, with a host, (params, host)
ParamsCheck = Callable[[dict[str, Any]], None]


class ReplayHost(Protocol):
    """What verification needs of a call's host (dyntools.capabilities.hostcalls.HostCalls)."""

    def __call__(self, request: Any, deadline: float) -> dict[str, Any]: ...

    def replay_problems(self) -> list[str]: ...


HostFor = Callable[["Example"], "ReplayHost | None"]


@dataclass(frozen=True, slots=True)
class Example:
    """One fixture: these params must produce exactly this result. `http` holds the
    exchanges a capability tool makes on the way, replayed in order at verification."""

    params: Mapping[str, Any]
    result: Mapping[str, Any]
    origin: str = TOOL
    http: tuple[Exchange, ...] = ()

    @classmethod
    def parse(cls, value: Any, origin: str) -> Example:
        """From `{"params": {...}, "result": {...}}` (and an optional `"http"` list of
        recorded exchanges); raises UsageError naming the problem."""
        if (
            not isinstance(value, Mapping)
            or not {"params", "result"} <= set(value) <= {"params", "result", "http"}
            or not isinstance(value["params"], Mapping)
            or not isinstance(value["result"], Mapping)
        ):
            raise UsageError(
                'an example must be {"params": {...}, "result": {...}} with objects for both '
                f'(and optionally "http": [recorded exchanges]), got {_shown(value)}'
            )
        try:
            canonical(value)
        except (TypeError, ValueError, RecursionError) as exc:
            # RecursionError: nesting deeper than the encoder's stack, a caller's input error.
            raise UsageError(f"an example is not JSON data: {exc}") from None
        http: tuple[Exchange, ...] = ()
        if "http" in value:
            try:
                http = parse_exchanges(value["http"])
            except DeclarationError as exc:
                raise UsageError(f"an example's recorded exchanges: {exc.message}") from None
        return cls(dict(value["params"]), dict(value["result"]), origin, http)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"params": dict(self.params), "result": dict(self.result)}
        if self.http:
            out["http"] = [exchange.as_dict() for exchange in self.http]
        return out


@dataclass(frozen=True, slots=True)
class ExampleOutcome:
    index: int
    example: Example
    status: str
    actual: Any = None
    error: Mapping[str, Any] | None = None

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def describe(self) -> str:
        head = (
            f"example {self.index + 1} ({self.example.origin}) with params "
            f"{_shown(self.example.params)}"
        )
        expected = _shown(self.example.result)
        if self.status == FAILED:
            return f"{head}: expected {expected}, got {_shown(self.actual)}"
        if self.status == ERROR and self.error is not None:
            return (
                f"{head}: expected {expected}, the call failed with "
                f"{self.error.get('reason')}: {self.error.get('message')}"
            )
        if self.status == NOT_RUN:
            return f"{head}: not run (an earlier example cost its worker or the time budget)"
        return f"{head}: passed"

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "origin": self.example.origin,
            "status": self.status,
            "params": dict(self.example.params),
            "expected": dict(self.example.result),
            "actual": self.actual,
            "error": dict(self.error) if self.error is not None else None,
        }


@dataclass(frozen=True, slots=True)
class VerificationReport:
    tool: str
    outcomes: tuple[ExampleOutcome, ...]

    @property
    def passed(self) -> bool:
        return all(outcome.passed for outcome in self.outcomes)

    @property
    def failures(self) -> tuple[ExampleOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status in (FAILED, ERROR))

    @property
    def failed_origins(self) -> frozenset[str]:
        """Where the failing examples came from (TOOL, CALLER, CONTRACT): whose promise broke."""
        return frozenset(o.example.origin for o in self.failures)

    @property
    def failed_own_examples(self) -> bool:
        """True when the version broke its own EXAMPLES (not only what a caller added)."""
        return TOOL in self.failed_origins

    @property
    def passed_examples(self) -> list[dict[str, Any]]:
        """What this version has now promised: the examples it reproduced."""
        return [o.example.as_dict() for o in self.outcomes if o.passed]

    def counts(self) -> dict[str, int]:
        counts = {PASSED: 0, FAILED: 0, ERROR: 0, NOT_RUN: 0}
        for outcome in self.outcomes:
            counts[outcome.status] += 1
        return counts

    def summary(self) -> str:
        if not self.outcomes:
            return "no examples to run"
        if self.passed:
            origins = sorted({o.example.origin for o in self.outcomes})
            return f"{len(self.outcomes)} example(s) passed ({', '.join(origins)})"
        failures = self.failures
        text = failures[0].describe()
        if len(failures) > 1:
            text += f" (and {len(failures) - 1} more failure(s))"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "passed": self.passed,
            "counts": self.counts(),
            "examples": [o.as_dict() for o in self.outcomes],
        }


def canonical(value: Any) -> str:
    """The one JSON spelling two results are compared by."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


# A caller's examples are run in the sandbox and, once passed, kept in the manifest as the
# contract every later version must pass: unbounded, one ensure could write a manifest of
# any size that every open then parses. A tool's own EXAMPLES are bounded by the gate's
# file size limit; these bounds are several times that.
MAX_CALLER_EXAMPLES = 256
MAX_CALLER_EXAMPLE_BYTES = 1 << 20


def collect_examples(
    own: Iterable[Any] = (),
    caller: Iterable[Any] = (),
    contract: Iterable[Any] = (),
    counterexamples: Iterable[Any] = (),
) -> tuple[Example, ...]:
    """Own EXAMPLES, then the counterexamples, the caller's, then the contract's;
    duplicates run once. Raises UsageError when the caller's examples exceed
    MAX_CALLER_EXAMPLES or, together, MAX_CALLER_EXAMPLE_BYTES of JSON."""
    seen: set[str] = set()
    examples: list[Example] = []
    caller_count = caller_bytes = 0
    for origin, values in ((TOOL, own), (COUNTEREXAMPLE, counterexamples), (CALLER, caller),
                           (CONTRACT, contract)):
        for value in values:
            example = value if isinstance(value, Example) else Example.parse(value, origin)
            key = canonical(example.as_dict())
            if origin == CALLER:
                caller_count += 1
                caller_bytes += len(key)
                if caller_count > MAX_CALLER_EXAMPLES:
                    raise UsageError(f"at most {MAX_CALLER_EXAMPLES} examples may be given")
                if caller_bytes > MAX_CALLER_EXAMPLE_BYTES:
                    raise UsageError(f"the examples given are over {MAX_CALLER_EXAMPLE_BYTES} "
                                     "bytes of JSON together")
            if key not in seen:
                seen.add(key)
                examples.append(example)
    return tuple(examples)


# All examples of one verification together, however many there are and however close to
# the call timeout each one runs: a version that needs longer is not activated.
VERIFY_BUDGET_S = 120.0


def run_examples(
    call: ToolCall,
    examples: Sequence[Example],
    *,
    tool: str,
    check: ParamsCheck | None = None,
    budget_s: float = VERIFY_BUDGET_S,
    host_for: HostFor | None = None,
) -> VerificationReport:
    """Run every example through `call` (a sandboxed call) and compare results exactly.

    `check` validates an example's params first (against the tool's PARAMS), as a real
    call would: an example the tool's schema refuses is a failure, not a silent pass. Once
    `budget_s` seconds have gone, the next example fails with `verification_timeout` and the
    rest are not run. `host_for(example)` gives a capability tool's call the host that
    replays the example's recorded exchanges (`call(params, host)`); a request that was not
    recorded, or a recorded one never made, fails the example whatever the result.
    """
    outcomes: list[ExampleOutcome] = []
    stopped = False
    deadline = time.monotonic() + budget_s
    for index, example in enumerate(examples):
        if stopped:
            outcomes.append(ExampleOutcome(index, example, NOT_RUN))
            continue
        if time.monotonic() > deadline:
            outcomes.append(ExampleOutcome(index, example, ERROR, error={
                "station": "verify", "reason": "verification_timeout",
                "message": f"the examples ran past the {budget_s:g} s verification budget"}))
            stopped = True
            continue
        host = host_for(example) if host_for is not None else None
        try:
            if check is not None:
                check(dict(example.params))
            actual = call(dict(example.params)) if host is None else \
                call(dict(example.params), host)
        except InvalidParams as exc:
            outcomes.append(ExampleOutcome(index, example, ERROR, error=_error_of(exc)))
            continue
        except SandboxError as exc:
            # A request that was not recorded is why the call failed, whatever it raised.
            error = _replay_error(host) or _error_of(exc)
            outcomes.append(ExampleOutcome(index, example, ERROR, error=error))
            stopped = not isinstance(exc, ToolRuntimeError | BadResult)
            continue
        replayed = _replay_error(host)
        if replayed is not None:
            outcomes.append(ExampleOutcome(index, example, ERROR, actual=actual,
                                           error=replayed))
            continue
        outcomes.append(
            ExampleOutcome(index, example, PASSED if _same(actual, example.result) else FAILED,
                           actual=actual)
        )
    return VerificationReport(tool, tuple(outcomes))


def _replay_error(host: ReplayHost | None) -> dict[str, Any] | None:
    """The example's failure when its call made requests it did not record (or left
    recorded ones unmade); None when the replay went as recorded."""
    problems = host.replay_problems() if host is not None else []
    if not problems:
        return None
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    return {"station": "verify", "reason": "unrecorded_request",
            "message": "; ".join(problems[:3]) + more}


def _same(actual: Any, expected: Mapping[str, Any]) -> bool:
    try:
        return canonical(actual) == canonical(dict(expected))
    except (TypeError, ValueError, RecursionError):
        return False


def _error_of(exc: SandboxError | InvalidParams) -> dict[str, Any]:
    error: dict[str, Any] = {"station": exc.station, "reason": exc.reason,
                             "message": exc.message}
    # Where in the tool file it raised, and which capability was refused: what a repair
    # tells the generator (pipeline/failures.py).
    for key in ("trace", "capability"):
        if exc.details.get(key) is not None:
            error[key] = exc.details[key]
    return error


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."
