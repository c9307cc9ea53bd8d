"""generate → gate, with the gate's findings fed back to the model a bounded number of times.

    gated = generate_gated(generator, spec, gate=lambda src: check_source(src, policy))
    gated.generated.source, gated.generated.attempts, gated.report

Each attempt's source goes to the gate and nowhere else; nothing is written or run here. A
rejected source is retried only when the generator can use feedback (a model can; a file or a
template would hand back the same text). The last rejection leaves as `GateRejected` carrying
that attempt's report; a generator failure leaves as its `GenerationError` leaf, unchanged.

The gate refuses a file whose NAME is not the requested name (`expected_name`, a DT504
finding the model can act on); a gate passed in that does not ask for it gets the same
finding here, from the report's NAME (no second parse).
"""

from __future__ import annotations

import ast
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dyntools.base.log import get_logger
from dyntools.errors import GateRejected, UsageError
from dyntools.gate.findings import Finding, GateReport
from dyntools.generators.base import GeneratedSource, Generator, ToolSpec

Gate = Callable[[str], GateReport]
DEFAULT_MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class GatedSource:
    """An accepted source, its gate report, and the reports of the attempts refused before it."""

    generated: GeneratedSource
    report: GateReport
    rejected: tuple[GateReport, ...] = ()


def generate_gated(
    generator: Generator,
    spec: ToolSpec,
    gate: Gate | None = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> GatedSource:
    if max_attempts < 1:
        raise UsageError(f"max_attempts must be at least 1, got {max_attempts}")
    check = gate or _default_gate(generator, spec.name)
    log = get_logger("generate", generator=generator.id, model=generator.model, tool=spec.name)
    rejected: list[GateReport] = []
    request = spec
    for attempt in range(1, max_attempts + 1):
        started = time.perf_counter()
        generated = generator.generate(request)
        generate_ms = (time.perf_counter() - started) * 1000
        report = require_name(check(generated.source), generated.source, spec.name)
        log.info(
            "attempt",
            attempt=attempt,
            outcome="accepted" if report.accepted else "rejected",
            codes=sorted(report.codes),
            sha256=report.sha256,
            generate_ms=round(generate_ms, 3),
        )
        if report.accepted:
            return GatedSource(
                dataclasses.replace(generated, attempts=attempt), report, tuple(rejected)
            )
        rejected.append(report)
        if not generator.accepts_feedback:
            break
        request = spec.with_feedback(generated.source, report.findings)
    error = GateRejected(
        report,
        f"the gate rejected {spec.name!r} from {generator.id} after {len(rejected)} "
        f"attempt(s): {', '.join(sorted(report.codes))}",
    )
    error.details.update(attempts=len(rejected), generator=generator.id, tool=spec.name,
                         earlier_attempts=earlier_attempts(rejected[:-1]))
    raise error


# Findings kept per earlier attempt (a model's refused answer can hold hundreds).
MAX_ATTEMPT_FINDINGS = 20


def earlier_attempts(reports: tuple[GateReport, ...] | list[GateReport]) -> list[dict[str, Any]]:
    """What the gate said of each refused attempt, as plain data for a provenance record, an
    error's details and a person: `{"attempt": 1, "codes": [...], "findings": ["10:18: DT302
    attribute '__class__' ...", ...]}` (at most MAX_ATTEMPT_FINDINGS findings each)."""
    return [{"attempt": number,
             "codes": sorted(report.codes),
             "findings": [f"{f.line}:{f.col}: {f.code} {f.message}"
                          for f in report.findings[:MAX_ATTEMPT_FINDINGS]],
             "more": max(0, len(report.findings) - MAX_ATTEMPT_FINDINGS)}
            for number, report in enumerate(reports, start=1)]


def require_name(report: GateReport, source: str, wanted: str) -> GateReport:
    """Add a DT504 finding when an otherwise valid file declares a NAME other than `wanted`."""
    if not report.accepted or report.declared_name == wanted:
        return report  # the gate read NAME already: parsed again only to place a finding
    declared, line, col = declared_name(source)
    finding = Finding(
        line=line,
        col=col,
        code="DT504",
        message=f"NAME is {declared!r} but the requested tool is {wanted!r}; set NAME = {wanted!r}",
    )
    return report.replace(findings=(*report.findings, finding))


def declared_name(source: str) -> tuple[str | None, int, int]:
    """The string bound to a top-level NAME and its 1-based position (parsed, never run)."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return None, 1, 1
    for node in module.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "NAME"
        ):
            value = node.value.value if isinstance(node.value, ast.Constant) else None
            return (value if isinstance(value, str) else None), node.lineno, node.col_offset + 1
    return None, 1, 1


def _default_gate(generator: Generator, name: str) -> Gate:
    from dyntools.gate import check_source

    policy = getattr(generator, "policy", None)
    return lambda source: check_source(source, policy, path=f"<{generator.id}>",
                                       expected_name=name)
