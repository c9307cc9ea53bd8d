"""What the pages show, read from the registry: plain values, no HTML, no writes.

    rows = registry_rows(ui, query="count words", status="pending")
    view = version_view(ui, "slugify_text", 2)          # VersionView, or UnknownVersion
    rows = diff_rows(old_text, new_text)                # side by side

Everything comes from the same places the CLI reads: `Registry` records (hash-checked and
re-gated when the registry opened or the watcher saw a change), `check_source` for a
version's findings today, `read_metadata` for its EXAMPLES and `declared_capabilities` for
its CAPABILITIES, and `Catalog.search` for search (`dyntools search`). What a version file
holds is parsed once per SHA-256 (its content) and cached.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dyntools.errors import DyntoolsError, UnknownVersion
from dyntools.gate import check_source
from dyntools.gate.findings import RULES, sha256_hex
from dyntools.pipeline.verify import canonical
from dyntools.registry.decision_marks import decision_mark
from dyntools.registry.manifest import APPROVED, PENDING, QUARANTINED, REJECTED, RETIRED
from dyntools.registry.records import ToolState, Unrecorded, VersionRecord
from dyntools.registry.store import read_regular
from dyntools.ui.content import Parsed

if TYPE_CHECKING:
    from dyntools.ui.runs import Attempt
    from dyntools.ui.state import UiState

STATUSES = (APPROVED, PENDING, REJECTED, QUARANTINED, RETIRED)
UNRECORDED = "unrecorded"
MAX_ROWS = 5000


def recorded_parsed(ui: UiState, record: VersionRecord) -> Parsed | None:
    """The parsed content of a recorded version whose bytes still match its hash."""
    hit = ui.contents.get(record.sha256)
    if hit is not None or record.status == QUARANTINED:
        return hit
    try:
        data = ui.registry.read_recorded(record.name, record.version)
    except DyntoolsError:
        return None
    return ui.contents.get(record.sha256, data)


# ------------------------------------------------------------------------------ registry


@dataclass(frozen=True, slots=True)
class Widening:
    version: int
    status: str
    added: Mapping[str, list[str]]


# Statuses that ask a person for something (a decision, or a look at a file edited on disk):
# a tool's row says so beside its headline, whatever its current version is.
ATTENTION = (QUARANTINED, PENDING, UNRECORDED)


@dataclass(frozen=True, slots=True)
class AlsoPill:
    """Versions of a tool, other than its headline one, in a status that needs a person."""

    status: str
    versions: tuple[int, ...]

    @property
    def text(self) -> str:
        if len(self.versions) == 1:
            return f"v{self.versions[0]} {self.status}"
        return f"{len(self.versions)} {self.status}"


@dataclass(frozen=True, slots=True)
class ToolRow:
    name: str
    current: int | None
    versions: tuple[tuple[int, str], ...]
    counts: Mapping[str, int]
    description: str
    capabilities: str
    widenings: tuple[Widening, ...]
    last_change: str
    problem: str | None
    unrecorded: int
    score: float | None = None

    @property
    def headline(self) -> int | None:
        """The version the headline speaks for: the current one, else the newest recorded."""
        if self.current is not None:
            return self.current
        recorded = [v for v, status in self.versions if status != UNRECORDED]
        return recorded[-1] if recorded else None

    @property
    def status(self) -> str:
        """The tool's headline: its current version's status, else its newest version's."""
        if self.problem:
            return "manifest invalid"
        if self.current is not None:
            return APPROVED
        recorded = [status for _, status in self.versions if status != UNRECORDED]
        return recorded[-1] if recorded else UNRECORDED

    @property
    def also(self) -> tuple[AlsoPill, ...]:
        """Besides the headline: the other versions that wait for a decision or were
        quarantined, and files no manifest records (a tool with a quarantined v2 and a
        pending v7 does not read just "approved")."""
        headline = self.headline
        pills = []
        for status in ATTENTION:
            versions = tuple(v for v, s in self.versions if s == status and v != headline)
            if versions:
                pills.append(AlsoPill(status, versions))
        return tuple(pills)


def last_change(state: ToolState) -> str:
    stamps = [r.created for r in state.records.values()]
    stamps += [str(d.get("time")) for r in state.records.values() for d in r.decisions
               if d.get("time")]
    stamps += [str(h.get("time")) for h in state.history if h.get("time")]
    return max(stamps, default="")


def tool_row(ui: UiState, state: ToolState, score: float | None = None) -> ToolRow:
    records = [state.records[v] for v in sorted(state.records)]
    counts: dict[str, int] = {}
    for record in records:
        counts[record.status] = counts.get(record.status, 0) + 1
    shown = state.current_record or next(
        (r for r in reversed(records) if r.status != QUARANTINED), None)
    parsed = recorded_parsed(ui, shown) if shown is not None else None
    current_caps = None
    if state.current_record is not None:
        current = recorded_parsed(ui, state.current_record)
        current_caps = current.capabilities if current is not None else None
    widenings = []
    for record in records:
        if record.status != PENDING and not (record.usable and record.version != state.current):
            continue
        candidate = recorded_parsed(ui, record)
        if candidate is None or candidate.capabilities is None:
            continue
        added = candidate.capabilities.widens(current_caps)
        if added:
            widenings.append(Widening(record.version, record.status, added))
    if parsed is None:
        caps = "unknown (no version whose file checks out)"
    elif parsed.capabilities is None:
        caps = parsed.problem or "unknown"
    else:
        caps = parsed.capabilities.summary()
    versions = sorted([(r.version, r.status) for r in records] + [
        (u.version, UNRECORDED) for u in state.unrecorded if u.version is not None])
    return ToolRow(
        name=state.name, current=state.current, versions=tuple(versions),
        counts=counts, description=parsed.description if parsed else "",
        capabilities=caps, widenings=tuple(widenings), last_change=last_change(state),
        problem=state.error, unrecorded=len(state.unrecorded), score=score,
    )


def registry_rows(ui: UiState, *, query: str = "", status: str = "") -> list[ToolRow]:
    """Every tool, or those `Catalog.search` finds for `query` (best first), optionally only
    those with a version of `status` (or an unrecorded file)."""
    states = {state.name: state for state in ui.registry.tools()}
    if query.strip():
        hits = ui.catalog.search(query, limit=100)
        chosen = [(states[hit.name], hit.score) for hit in hits if hit.name in states]
    else:
        chosen = [(state, None) for state in states.values()]
    rows = []
    for state, score in chosen:
        if status == UNRECORDED and not state.unrecorded:
            continue
        if status in STATUSES and not any(r.status == status for r in state.records.values()):
            continue
        rows.append(tool_row(ui, state, score))
        if len(rows) >= MAX_ROWS:
            break
    return rows


def status_counts(ui: UiState) -> dict[str, int]:
    counts = dict.fromkeys((*STATUSES, UNRECORDED), 0)
    for state in ui.registry.tools():
        for record in state.records.values():
            counts[record.status] = counts.get(record.status, 0) + 1
        counts[UNRECORDED] += len(state.unrecorded)
    return counts


# ------------------------------------------------------------------------------- version


@dataclass(frozen=True, slots=True)
class ExampleRow:
    params: str
    result: str
    verified: str  # "passed" (in the recorded verification), "not recorded", "?"


@dataclass(frozen=True, slots=True)
class SignatureView:
    key: str
    approver: str
    time: str
    verdict: str
    check: str  # a sentence: valid and trusted, valid but not trusted, invalid...
    ok: bool


@dataclass(frozen=True, slots=True)
class VersionView:
    name: str
    version: int
    status: str
    recorded_status: str
    is_current: bool
    current: int | None
    reason: str | None
    reason_code: str | None
    sha256: str | None  # recorded (None for an unrecorded file)
    sha256_now: str | None  # of the bytes on disk now (None: unreadable)
    size: int | None
    created: str
    policy_digest: str
    policy_today: bool
    text: str | None
    truncated: bool
    findings: tuple[dict[str, Any], ...]  # the gate, run on the bytes now
    recorded_findings: tuple[Mapping[str, Any], ...]
    gate_accepted_then: bool | None
    parsed: Parsed | None
    examples: tuple[ExampleRow, ...]
    verification: Mapping[str, Any] | None
    provenance: tuple[tuple[str, str], ...]
    attempts: tuple[Attempt, ...] | None
    attempts_recorded: Any
    decisions: tuple[Mapping[str, Any], ...]
    signature: SignatureView | None
    capabilities: str
    widens: Mapping[str, list[str]]
    others: tuple[tuple[int, str], ...]
    history: tuple[Mapping[str, Any], ...]
    actions: tuple[str, ...]
    unrecorded_reason: str | None = None
    notes: tuple[str, ...] = field(default=())
    approve_blocked: str | None = None  # why approve is off (the server refuses it too)

    @property
    def hash_ok(self) -> bool:
        return self.sha256 is not None and self.sha256 == self.sha256_now


def _read_now(path: Any, limit: int) -> bytes | None:
    """The bytes on disk now, at most `limit + 1` (one more than the gate accepts)."""
    try:
        return read_regular(path, limit=limit + 1)
    except OSError:
        return None


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def gate_findings(ui: UiState, data: bytes, path: str) -> tuple[dict[str, Any], ...]:
    """The gate's findings on `data` now, each with its rule's title and help."""
    report = check_source(data, ui.registry.policy, path=path)
    return tuple(dict(f.as_dict(), title=RULES[f.code].title, help=RULES[f.code].help)
                 for f in report.findings)


def _example_rows(parsed: Parsed | None,
                  verification: Mapping[str, Any] | None) -> tuple[ExampleRow, ...]:
    if parsed is None or parsed.metadata is None:
        return ()
    passed: set[str] = set()
    values = verification.get("examples") if isinstance(verification, Mapping) else None
    if isinstance(values, list):
        for value in values:
            try:
                passed.add(canonical(value))
            except (TypeError, ValueError, RecursionError):
                continue
    rows = []
    for example in parsed.metadata.examples:
        try:
            key = canonical({"params": example.get("params"), "result": example.get("result")})
        except (TypeError, ValueError, RecursionError):
            key = ""
        verified = "passed" if key in passed else ("not recorded" if verification is None
                                                   else "not among the passed examples")
        rows.append(ExampleRow(_json(example.get("params")), _json(example.get("result")),
                               verified))
    return tuple(rows)


def _signature(ui: UiState, record: VersionRecord) -> SignatureView | None:
    from dyntools.registry.signing import check_signature

    sig = record.signature
    if sig is None:
        return None
    key = str(sig.get("key", ""))
    own = check_signature(record.name, record.version, record.sha256, str(sig.get("verdict")),
                          record.policy_digest, sig, frozenset({key}))
    trusted = ui.registry.trusted_keys
    if own is not None:
        check, ok = f"invalid: {own[1]}", False
    elif trusted is None:
        check, ok = "valid signature by this key (no trusted keys configured here)", True
    elif key in trusted:
        check, ok = "valid, by a trusted key", True
    else:
        check, ok = "valid, but the key is not trusted here", False
    return SignatureView(key=key, approver=str(sig.get("approver", "")),
                         time=str(sig.get("time", "")), verdict=str(sig.get("verdict", "")),
                         check=check, ok=ok)


def actions_for(status: str, version: int, current: int | None, recorded: bool,
                refused: bool = False) -> tuple[str, ...]:
    """The decisions the page offers (the functions behind them check again). A dropped-in
    file the gate refuses can be retired, not rejected (the registry records a rejection
    only of a file that passed the gate); its approve is shown, off, with the reason."""
    if not recorded:
        return ("approve", "retire") if refused else ("approve", "reject", "retire")
    actions: list[str] = []
    if status == PENDING:
        actions += ["approve", "reject"]
    if status == APPROVED and version != current:
        actions.append("activate")
        if current is not None and version < current:
            actions.append("rollback")
    if status != RETIRED:
        actions.append("retire")
    return tuple(actions)


DESTRUCTIVE = ("reject", "retire")


def approve_blocked(actions: Sequence[str], text: str | None,
                    findings: Sequence[Mapping[str, Any]]) -> str | None:
    """Why the page's approve is off, or None: a file the gate refuses today cannot be
    approved (Dyntools.approve gates it again and refuses), nor one that cannot be read."""
    if "approve" not in actions:
        return None
    if text is None:
        return "the file cannot be read: there is nothing to approve"
    if findings:
        others = " or ".join(f"{a}ed" if a.endswith("t") else f"{a}d"
                             for a in actions if a in DESTRUCTIVE)
        return (f"the gate refuses this file: {len(findings)} finding(s), shown with the "
                "source. Only a file that passes the gate can be approved"
                + (f"; this one can be {others}" if others else ""))
    return None


def _dropped_reason(reason: str, refused: bool) -> str:
    """A dropped-in file's reason as the page says it: the registry's own words name the
    CLI's next step (`run approve`), which is no step at all for a file the gate refuses."""
    said = reason.split("; run approve", 1)[0]
    if refused:
        return said + "; the gate refuses it, so it cannot be approved"
    return said + "; read it, then approve it to trust it"


def _provenance_rows(provenance: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    order = ("generator", "model", "prompt_sha256", "attempts", "time",
             "description_requested", "source_file", "contract_change")
    keys = [k for k in order if k in provenance] + sorted(
        k for k in provenance if k not in order and k != "verification")
    return tuple((str(k), _json(provenance[k]) if not isinstance(provenance[k], str)
                  else provenance[k]) for k in keys if provenance[k] is not None)


def version_view(ui: UiState, name: str, version: int) -> VersionView:
    """One version (recorded, or a dropped-in file no manifest records) as the page shows it.
    Raises UnknownTool / UnknownVersion."""
    state = ui.registry.tool(name)
    record = state.records.get(version)
    dropped = next((u for u in state.unrecorded if u.version == version), None)
    if record is None and dropped is None:
        ui.registry.get(name, version)  # raises UnknownVersion with the known versions
        raise UnknownVersion(f"tool {name!r} has no version {version}", tool=name,
                             version=version)
    limit = ui.registry.policy.limits.max_bytes
    path = record.path if record is not None else dropped.path  # type: ignore[union-attr]
    raw = _read_now(path, limit)
    truncated = raw is not None and len(raw) > limit
    data = raw[:limit] if raw is not None else None
    digest_now = sha256_hex(data) if data is not None and not truncated else None
    findings: tuple[dict[str, Any], ...] = ()
    parsed: Parsed | None = None
    if raw is not None and data is not None:
        findings = gate_findings(ui, raw, f"{name}/v{version}.py")
        parsed = ui.contents.get(digest_now, data) if digest_now else None
    text = data.decode("utf-8", "replace") if data is not None else None
    current = state.current
    current_caps = None
    if state.current_record is not None and current != version:
        got = recorded_parsed(ui, state.current_record)
        current_caps = got.capabilities if got is not None else None
    caps = parsed.capabilities if parsed is not None else None
    widens = caps.widens(current_caps) if caps is not None and current != version else {}
    others = tuple((r.version, r.status) for r in (state.records[v] for v in sorted(
        state.records))) + tuple((u.version, UNRECORDED) for u in state.unrecorded
                                 if u.version is not None)
    notes: list[str] = []
    if record is None:
        assert dropped is not None
        actions = actions_for(UNRECORDED, version, current, False,
                              refused=bool(findings) or text is None)
        blocked = approve_blocked(actions, text, findings)
        return VersionView(
            name=name, version=version, status=UNRECORDED, recorded_status=UNRECORDED,
            is_current=False, current=current,
            reason=_dropped_reason(dropped.reason, blocked is not None),
            reason_code=UNRECORDED,
            sha256=None, sha256_now=digest_now, size=len(data) if data is not None else None,
            created="", policy_digest="", policy_today=True, text=text, truncated=truncated,
            findings=findings, recorded_findings=(), gate_accepted_then=None, parsed=parsed,
            examples=_example_rows(parsed, None), verification=None, provenance=(),
            attempts=None, attempts_recorded=None, decisions=(), signature=None,
            capabilities=_caps_text(parsed), widens=widens, others=others,
            history=state.history, actions=actions, unrecorded_reason=dropped.reason,
            notes=tuple(notes), approve_blocked=blocked)
    verification = record.provenance.get("verification")
    verification = verification if isinstance(verification, Mapping) else None
    if digest_now is not None and digest_now != record.sha256:
        notes.append("the file on disk is not what was recorded: the source below is what "
                     "is on disk now")
    recorded_findings = tuple(f for f in record.gate.get("findings", ())
                              if isinstance(f, Mapping))
    attempts = ui.feed.attempts_for(name, record.sha256)
    actions = actions_for(record.status, version, current, True)
    return VersionView(
        name=name, version=version, status=record.status,
        recorded_status=record.recorded_status, is_current=current == version,
        current=current, reason=record.reason, reason_code=record.reason_code,
        sha256=record.sha256, sha256_now=digest_now, size=record.size,
        created=record.created, policy_digest=record.policy_digest,
        policy_today=record.policy_digest == ui.registry.policy.digest, text=text,
        truncated=truncated, findings=findings, recorded_findings=recorded_findings,
        gate_accepted_then=bool(record.gate.get("accepted")), parsed=parsed,
        examples=_example_rows(parsed, verification), verification=verification,
        provenance=_provenance_rows(record.provenance),
        attempts=tuple(attempts) if attempts is not None else None,
        attempts_recorded=record.provenance.get("attempts"),
        decisions=tuple({**d, "signature_mark": decision_mark(
            d, version, state.chain, ui.registry.trusted_keys).text.strip()}
            for d in record.decisions),
        signature=_signature(ui, record),
        capabilities=_caps_text(parsed), widens=widens, others=others,
        history=state.history, actions=actions, notes=tuple(notes),
        approve_blocked=approve_blocked(actions, text, findings))


def _caps_text(parsed: Parsed | None) -> str:
    if parsed is None:
        return "unknown (the file cannot be read)"
    if parsed.capabilities is None:
        return parsed.problem or "unknown"
    return parsed.capabilities.summary()


def version_source(ui: UiState, name: str, version: int) -> tuple[str, str]:
    """(status, text) of any version for a diff; UsageError-free: unreadable is a note."""
    state = ui.registry.tool(name)
    record = state.records.get(version)
    dropped: Unrecorded | None = next((u for u in state.unrecorded if u.version == version),
                                      None)
    if record is None and dropped is None:
        ui.registry.get(name, version)
    path = record.path if record is not None else dropped.path  # type: ignore[union-attr]
    limit = ui.registry.policy.limits.max_bytes
    data = _read_now(path, limit)
    status = record.status if record is not None else UNRECORDED
    if data is None:
        return status, ""
    return status, data[:limit].decode("utf-8", "replace") + ("\n..." if len(data) > limit
                                                              else "")


# ---------------------------------------------------------------------------------- diff


@dataclass(frozen=True, slots=True)
class DiffRow:
    kind: str  # equal, replace, delete, insert
    old_no: int | None
    old: str | None
    new_no: int | None
    new: str | None


def diff_rows(old: str, new: str) -> list[DiffRow]:
    """Side by side: changed lines paired, unchanged runs kept whole."""
    from dyntools.ui.render import split_lines

    a, b = split_lines(old), split_lines(new)
    rows: list[DiffRow] = []
    # difflib's junk heuristic on (as for `dyntools diff`): without it, a file of a few
    # lines repeated thousands of times (24 KB) held the server for minutes.
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=True)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [DiffRow("equal", i1 + k + 1, a[i1 + k], j1 + k + 1, b[j1 + k])
                     for k in range(i2 - i1)]
            continue
        left, right = list(range(i1, i2)), list(range(j1, j2))
        for k in range(max(len(left), len(right))):
            i = left[k] if k < len(left) else None
            j = right[k] if k < len(right) else None
            kind = "replace" if i is not None and j is not None else (
                "delete" if i is not None else "insert")
            rows.append(DiffRow(kind, i + 1 if i is not None else None,
                                a[i] if i is not None else None,
                                j + 1 if j is not None else None,
                                b[j] if j is not None else None))
    return rows


def diff_counts(rows: Sequence[DiffRow]) -> dict[str, int]:
    return {"added": sum(1 for r in rows if r.new is not None and r.kind != "equal"),
            "removed": sum(1 for r in rows if r.old is not None and r.kind != "equal")}
