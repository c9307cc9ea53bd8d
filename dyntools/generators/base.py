"""The generator seam: what is asked for (`ToolSpec`) and what comes back (`GeneratedSource`).

A `Generator` turns a spec into tool source text and nothing more. It never executes what it
produces: only the gate and, after it, the sandbox see the code. A generator that cannot answer
raises a `GenerationError` leaf (`dyntools.errors`) that names the reason.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from dyntools.base.toolname import tool_name_problem
from dyntools.errors import UsageError
from dyntools.gate.findings import Finding

EXCERPT_CHARS = 2000
# What a version's provenance records of its source (the registry adds the time).
PROVENANCE_KEYS = ("generator", "model", "attempts", "prompt_sha256")


GATE, RUN = "gate", "run"  # who produced the findings: the static gate, or a sandboxed run


@dataclass(frozen=True, slots=True)
class GateFeedback:
    """Why the previous attempt (or, for a repair, the current version) needs another: its
    source and the findings, `kind` GATE (the gate refused it) or RUN (it ran in the sandbox
    and failed a call: pipeline/failures.py, the same shape as the gate's findings)."""

    source: str
    findings: tuple[Finding, ...]
    kind: str = GATE

    def render(self) -> str:
        """One `LINE:COL: CODE message` line per finding, as the model reads it."""
        return "\n".join(f"{f.line}:{f.col}: {f.code} {f.message}" for f in self.findings)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What the caller wants: a tool name, what it does, and optionally its shape.

    `params` is a JSON Schema of type object, `examples` are `{"params", "result"}` fixtures the
    tool must satisfy, and `feedback` is set by the retry loop after a gate rejection.
    """

    name: str
    description: str = ""
    params: Mapping[str, Any] | None = None
    examples: tuple[Mapping[str, Any], ...] = ()
    feedback: GateFeedback | None = None

    def __post_init__(self) -> None:
        problem = tool_name_problem(self.name)
        if problem is not None:
            raise UsageError(problem, name=self.name)
        if not isinstance(self.examples, tuple):
            object.__setattr__(self, "examples", tuple(self.examples))

    def with_feedback(self, source: str, findings: Sequence[Finding],
                      kind: str = GATE) -> ToolSpec:
        return dataclasses.replace(self, feedback=GateFeedback(source, tuple(findings), kind))


@dataclass(frozen=True, slots=True)
class GeneratedSource:
    """Tool source text plus its provenance (recorded in the registry's manifest)."""

    source: str
    generator: str
    model: str | None = None
    attempts: int = 1
    prompt_sha256: str | None = None
    raw_excerpt: str = field(default="", repr=False)

    @classmethod
    def without_model(cls, source: str, generator: str) -> GeneratedSource:
        """Source no model wrote (a template, a file): no model, no prompt, one attempt."""
        return cls(source=source, generator=generator, raw_excerpt=excerpt(source))

    def as_provenance(self) -> dict[str, Any]:
        """What the registry records of where the source came from (PROVENANCE_KEYS)."""
        return {key: getattr(self, key) for key in PROVENANCE_KEYS}


@runtime_checkable
class Generator(Protocol):
    """Anything that turns a `ToolSpec` into source text.

    `id` names the generator in provenance and logs ("anthropic", "offline", ...); `model` is
    the model id when there is one. `accepts_feedback` says whether another attempt with the
    gate's findings can produce different code (a model can; a file or a template cannot).
    """

    @property
    def id(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    @property
    def accepts_feedback(self) -> bool: ...

    def generate(self, spec: ToolSpec) -> GeneratedSource: ...


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """The head of a model answer, kept for the audit trail."""
    return text if len(text) <= limit else text[:limit] + "\n[... truncated]"


def prompt_digest(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()
