"""The health of a whole registry: `Dyntools.health()`, `dyntools health`, the page's /health.

    report = dt.health(since=30 * 86400, stale_days=14)
    report["regressions"], report["unverified"], report["ok"]

It reads and reports; it never changes what is served (no version is recorded, quarantined
or moved; no failed call keeps params; each version runs in a worker of its own, and a tool
it composes is called as verification calls it):

- `regressions`: every served version re-verified now, in the sandbox, against its contract
  (pipeline/reverify.py), under this run's allow-list and Python; entries with `tool`,
  `version`, `example` and `got` or `error`; a quarantined current version (the pointer names
  a version that fails today's checks) is an entry with `reason: "quarantined"`;
- `unverified`: served versions that could not be re-verified, with why (fail closed: they
  count as failures);
- `duplicates`: pairs of current tools that do the same job (pipeline/duplicates.py);
- `usage` from the audit log over `since` seconds, and `unused` (tools and approved versions
  never called in that window) (pipeline/usage.py);
- `stale_pending`: versions pending a reviewer for longer than `stale_days`;
- `drift`: tools whose declared CAPABILITIES the operator's policy does not grant.
`ok` is false when `regressions` or `unverified` is not empty (the CLI exits 1).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dyntools.pipeline.core import PipelineCore
from dyntools.registry.manifest import APPROVED, PENDING

DEFAULT_SINCE_S = 30 * 86400.0
MANIFEST_INVALID = "manifest_invalid"
DEFAULT_STALE_DAYS = 14.0
MAX_JOBS = 64


def default_jobs() -> int:
    """Workers re-verifying at once: twice the cores this process may use (a worker's start
    waits on the kernel as much as on a core: bench/health.py measured 4 at a time on 2
    busy cores 5-9 s where 2 at a time took 8-12 s), at most MAX_JOBS."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(2, min(2 * cores, MAX_JOBS))


class HealthCheck:
    """`Dyntools.health` (imported when a check is asked for: a call never loads this)."""

    def __init__(self, core: PipelineCore) -> None:
        self.core = core

    def health(self, *, since: float = DEFAULT_SINCE_S,
               stale_days: float = DEFAULT_STALE_DAYS, audit_log: str | os.PathLike[str] |
               None = None, jobs: int | None = None, now: float | None = None,
               on_version: Callable[[Any], None] | None = None) -> dict[str, Any]:
        """The registry's health report (the module docstring lists its parts). `since`:
        the usage window in seconds; `audit_log`: the audit log to read (default
        `<registry>/audit.log`); `jobs`: versions re-verified at once."""
        from dyntools.errors import UsageError

        if not isinstance(since, int | float) or not 0 < since <= 100 * 365 * 86400:
            raise UsageError(f"since must be seconds above 0, got {since!r}")
        if not isinstance(stale_days, int | float) or not 0 <= stale_days <= 36500:
            raise UsageError(f"stale_days must be 0..36500, got {stale_days!r}")
        jobs = default_jobs() if jobs is None else jobs
        if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
            raise UsageError(f"jobs must be 1..{MAX_JOBS}, got {jobs!r}")
        started = time.perf_counter()
        now = time.time() if now is None else now
        from dyntools.pipeline.duplicates import alias_rule, candidates, judged
        from dyntools.pipeline.reverify import Target, reverify_all
        from dyntools.pipeline.usage import read_usage

        alias_of = alias_rule(self.core.registry)
        states = [s for s in self.core.registry.tools() if alias_of(s.name) is None]
        survey = _Survey(self.core, states)
        pairs = candidates(survey.tools, survey.examples, alias_of)
        partners: dict[str, list[Any]] = {}
        for pair in pairs:
            for name in pair.tools:
                partners.setdefault(name, []).extend(pair.params)
        checks = reverify_all(
            self.core, [Target(state, record, tuple(partners.get(state.name, ())))
                   for state, record in survey.targets], jobs=jobs, on_done=on_version)
        results: dict[str, Any] = {}
        for check in checks:
            survey.regressions.extend(check.regressions)
            survey.unverified.extend(check.unverified)
            results[check.tool] = check.results
        audit_path = Path(audit_log) if audit_log is not None else self.core.audit_path
        usage = read_usage(audit_path, since=now - since, now=now)
        return {
            "ok": not survey.regressions and not survey.unverified,
            "registry": str(self.core.registry.root),
            "python": sys.version.split()[0],
            "allowlist": self.core.policy.digest,
            "checked": {"tools": len(states), "versions": len(checks),
                        "examples": sum(c.examples for c in checks),
                        "jobs": jobs, "duplicate_candidates": len(pairs)},
            "regressions": survey.regressions,
            "unverified": survey.unverified,
            "duplicates": judged(pairs, results),
            "usage": usage.as_dict(),
            "unused": _unused(states, usage),
            "stale_pending": _stale(states, stale_days, now),
            "drift": survey.drift,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
        }


class _Survey:
    """What the registry's records say before anything runs: quarantined pointers, chains
    that do not vouch, capability drift, and each served version with its examples."""

    def __init__(self, core: PipelineCore, states: list[Any]) -> None:
        from dyntools.pipeline.reverify import (
            CHAIN,
            examples_of,
            quarantined_entry,
            refused_grants,
            unverified_entry,
        )
        from dyntools.pipeline.toolmeta import REGISTRY, Tool

        self.regressions: list[dict[str, Any]] = []
        self.unverified: list[dict[str, Any]] = []
        self.drift: list[dict[str, Any]] = []
        self.targets: list[tuple[Any, Any]] = []
        self.tools: list[Tool] = []
        self.examples: dict[str, Any] = {}
        for state in states:
            if state.error:
                # a manifest that cannot be read: what it serves cannot even be known
                self.unverified.append(unverified_entry(
                    state.name, None, MANIFEST_INVALID, f"its manifest cannot be read: "
                    f"{state.error}; nothing of it is served (dyntools review)"))
                continue
            pointed = (state.records.get(state.recorded_current)
                       if state.recorded_current is not None else None)
            if pointed is not None and not pointed.usable:
                self.regressions.append(quarantined_entry(pointed))
            if state.chain is not None and state.chain.code is not None:
                self.unverified.append(unverified_entry(
                    state.name, state.recorded_current, CHAIN,
                    f"{state.chain.code}: {state.chain.problem}"
                    + (f" ({state.chain.hint})" if state.chain.hint else "")))
                continue
            record = state.current_record
            if record is None:
                continue
            self.targets.append((state, record))
            try:
                meta = core._meta(record)
                examples = examples_of(core, state, record)
            except Exception:  # re-verification meets the same failure and reports why
                continue
            refused = refused_grants(core, meta.capabilities)
            if refused:
                self.drift.append({"tool": state.name, "version": record.version,
                                   "declared": meta.capabilities.as_dict(),
                                   "refused": refused})
            self.examples[state.name] = examples
            self.tools.append(Tool(state.name, meta.description, meta.params, REGISTRY,
                                   record.version))


def _unused(states: list[Any], usage: Any) -> dict[str, Any]:
    """Current tools and approved versions no execute event names in the window (unknown,
    and so empty, without an audit log)."""
    if usage.note is not None:
        return {"tools": [], "versions": [], "note": usage.note}
    tools = [s.name for s in states if s.current is not None and not usage.calls_of(s.name)]
    versions = [{"tool": s.name, "version": v} for s in states for v, record in
                sorted(s.records.items()) if record.status == APPROVED
                and (s.name, v) not in usage.versions_called]
    return {"tools": tools, "versions": versions, "note": None}


def _stale(states: list[Any], stale_days: float, now: float) -> list[dict[str, Any]]:
    from dyntools.pipeline.events import approve_command

    stale = []
    for state in states:
        for version, record in sorted(state.records.items()):
            if record.status != PENDING:
                continue
            created = _parse(record.created)
            age = (now - created) / 86400 if created is not None else None
            if age is None or age > stale_days:
                stale.append({"tool": state.name, "version": version,
                              "created": record.created,
                              "age_days": round(age, 1) if age is not None else None,
                              "approve_command": approve_command(state.name, version)})
    return stale


def _parse(text: Any) -> float | None:
    from datetime import UTC, datetime

    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
