"""Registry commands: list, search, show, diff, review, rollback, watch (the review workflow's
init, pending, approve, reject, activate, retire and keygen are in review_cmd.py).

Every command takes `--registry PATH` (else DYNTOOLS_REGISTRY, else ./generated_tools),
`--allowlist PATH`, `--trusted-keys FILE` and `--audit-log PATH`. Exit codes: 0 success, 1 a
registry problem (quarantined version, unusable version, persist failure; `review` exits 1
when anything needs attention), 2 bad input (an invalid or unknown tool name, an unknown
version, a bad option, a registry path that is a file, missing or unreadable), 12 an approval
whose verification failed, 14 a decision without a trusted signing key (with trusted keys),
16 a decision chain that does not vouch for the tool (with trusted keys: chain_mismatch,
no_chain, trust_state), 17 a pending version.
"""

from __future__ import annotations

import difflib
import functools
import json
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import click

from dyntools import errors
from dyntools.base.terminal import terminal_safe
from dyntools.cli.app import main
from dyntools.cli.options import (
    allowlist_click,
    audit_log_option,
    capabilities_click,
    capability_policy_option,
    registry_click,
    registry_root,
    setup_logging,
    sign_key_click,
    signer_option,
    trusted_keys_click,
    trusted_keys_option,
)
from dyntools.registry.core import Registry
from dyntools.registry.decision_marks import decision_mark
from dyntools.registry.manifest import APPROVED
from dyntools.registry.policyload import load_allowlist
from dyntools.registry.records import VersionRecord, require_valid_name
from dyntools.registry.review import (
    MAX_REVIEW_READ,
    build_review,
    render_review_text,
    to_review_sarif,
)
from dyntools.registry.store import read_regular

EXIT_OK, EXIT_PROBLEM, EXIT_USAGE = 0, 1, 2
AUDIT_LOG = "audit.log"
_USAGE_ERRORS = (
    errors.UsageError, errors.UnknownTool, errors.UnknownVersion, errors.PolicyLoadError,
)

F = TypeVar("F", bound=Callable[..., Any])


def registry_options(command: F, *, writes: bool = False, must_exist: bool = True) -> F:
    """`--registry`, `--allowlist`, `--trusted-keys` and `--audit-log` on every registry
    command; DyntoolsError -> exit code.

    A NAME argument is validated before the registry is opened, so a bad name touches
    nothing. A registry path that is a file, missing (where it must exist) or unreadable is
    one line and exit 2, from the option or DYNTOOLS_REGISTRY alike. Only commands that
    change something write `<registry>/audit.log` (a review must not modify what it reviews).
    """

    @registry_click  # a str, checked by registry_root: one line, the same for the variable
    @allowlist_click
    @trusted_keys_click
    @audit_log_option
    @functools.wraps(command)
    def wrapper(*args: Any, registry_path: str | None, allowlist: str | None,
                trusted_keys: str | None, audit_log: str | None, **kwargs: Any) -> Any:
        try:
            if "name" in kwargs:
                require_valid_name(kwargs["name"])
            policy = load_allowlist(allowlist)  # PolicyLoadError: exit 2, like a UsageError
            root = registry_root(registry_path, must_exist=must_exist)
            keys = trusted_keys_option(trusted_keys)
            setup_logging("warning", root, audit=writes and root.exists(), audit_log=audit_log)
            registry = Registry.open(root, policy, create=False, trusted_keys=keys)
            return command(registry, *args, **kwargs)
        except errors.DyntoolsError as exc:
            _fail(exc)

    return wrapper  # type: ignore[return-value]


def writer_options(command: F) -> F:
    return registry_options(command, writes=True)


def _fail(exc: errors.DyntoolsError) -> None:
    from dyntools.cli.common import exit_code_for

    click.echo(f"error: {terminal_safe(exc.message)}", err=True)
    if isinstance(exc, errors.GateRejected):
        for finding in exc.details.get("findings", []):
            click.echo(
                f"  {finding['line']}:{finding['col']}: {finding['code']} "
                f"{terminal_safe(finding['message'])}",
                err=True,
            )
    # ensure's codes: 12, 17, 14 and 16, and 10 (a sandbox below its default minimum)
    if isinstance(exc, errors.VerificationFailed | errors.PendingApproval
                  | errors.SigningKeyRequired | errors.ChainMismatch | errors.NoChain
                  | errors.TrustStateError | errors.LayerUnavailable):
        sys.exit(exit_code_for(exc))
    sys.exit(EXIT_USAGE if isinstance(exc, _USAGE_ERRORS) else EXIT_PROBLEM)


def _echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, sort_keys=False))


def _tool_status(registry: Registry, name: str) -> str:
    state = registry.tool(name)
    if state.error:
        return "manifest invalid"
    if state.alias is not None:
        served = registry.alias_of(name) is not None
        return (f"alias of {state.alias}" + ("" if served else
                f"; NOT SERVED: decision chain: {state.chain.code if state.chain else '?'} "
                "(dyntools review)"))
    counts: dict[str, int] = {}
    for record in state.records.values():
        counts[record.status] = counts.get(record.status, 0) + 1
    parts = [f"{n} {status}" for status, n in sorted(counts.items()) if status != APPROVED]
    if state.unrecorded:
        parts.append(f"{len(state.unrecorded)} unrecorded")
    if state.current is None:
        parts.append("no usable version")
    if state.chain is not None and state.chain.needs_attention:
        parts.append(f"decision chain: {state.chain.code or 'disagrees'} (dyntools review)")
    last = max((r.last_decision for r in state.records.values() if r.last_decision),
               key=lambda d: str(d.get("time")), default=None)
    if last is not None:
        parts.append(f"last decision: {terminal_safe(last.get('action'))} by "
                     f"{terminal_safe(last.get('by'))}")
    return ", ".join(parts) or "ok"


@main.command("list")
@registry_options
@click.option("--json", "as_json", is_flag=True, help="Print the tools as JSON.")
def list_tools(registry: Registry, as_json: bool) -> None:
    """List tools with their current version and status."""
    from dyntools.registry.review import declared_by

    rows: list[dict[str, Any]] = []
    for state in registry.tools():
        if state.alias is None and not (state.records or state.unrecorded or state.error):
            continue  # an alias removed under a signed chain: its history, nothing more
        record = state.current_record
        declared = declared_by(record) if record is not None else None
        rows.append({
            "name": state.name,
            "current": state.current,
            "versions": len(state.records),
            "status": _tool_status(registry, state.name),
            # One shape: an object, empty when the version reaches nothing (or none is current).
            "capabilities": declared.as_dict() if declared is not None else {},
            "alias_of": state.alias,
        })
    if as_json:
        _echo_json({"registry": str(registry.root), "tools": rows})
        return
    if not rows:
        click.echo(f"no tools in {registry.root}")
        return
    from dyntools.registry.review import capability_summary

    width = max(len("NAME"), *(len(r["name"]) for r in rows))
    click.echo(f"{'NAME':<{width}}  CURRENT  VERSIONS  STATUS")
    for r in rows:
        current = (f"v{r['current']}" if r["current"] is not None
                   else "->" if r["alias_of"] is not None else "-")
        reaches = (f"; reaches {terminal_safe(capability_summary(r['capabilities']))}"
                   if r["capabilities"] else "")
        click.echo(f"{r['name']:<{width}}  {current:<7}  {r['versions']:<8}  "
                   f"{r['status']}{reaches}")


@main.command("search")
@click.argument("query")
@registry_options
@click.option("--limit", type=click.IntRange(min=1, max=100), default=10, show_default=True,
              help="At most this many tools.")
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
def search_tools(registry: Registry, query: str, limit: int, as_json: bool) -> None:
    """Find current tools whose name, description or PARAMS match QUERY (BM25, best first).

    QUERY is plain words: quotes, `*`, `NEAR` or `col:` are never search syntax.
    """
    from dyntools.catalog.core import Catalog
    from dyntools.pipeline.dyntools import Dyntools

    with Catalog(Dyntools(registry), generate=False) as catalog:
        hits = catalog.search(query, limit=limit)
    if as_json:
        _echo_json({"registry": str(registry.root), "query": query,
                    "hits": [hit.as_dict() for hit in hits]})
        return
    if not hits:
        click.echo(f"no tool matches {terminal_safe(query)!s} in {registry.root}")
        return
    width = max(len("NAME"), *(len(hit.name) for hit in hits))
    click.echo(f"{'NAME':<{width}}  {'SCORE':>7}  DESCRIPTION")
    for hit in hits:
        description = terminal_safe(" ".join(hit.tool.description.split()))
        if len(description) > 100:
            description = description[:100] + "..."
        click.echo(f"{hit.name:<{width}}  {hit.score:>7.2f}  {description}")


def _pick(registry: Registry, name: str, version: int | None) -> VersionRecord:
    if version is not None:
        return registry.get(name, version)
    state = registry.tool(name)
    if state.error:
        raise errors.RegistryError(state.error, tool=name)
    record = state.current_record
    if record is None and state.records:
        record = state.records[max(state.records)]
    if record is None:
        raise errors.UnknownVersion(f"tool {name!r} has no versions", tool=name)
    return record


def _read_bytes(record: VersionRecord) -> bytes | None:
    try:
        return read_regular(record.path, limit=min(record.size, MAX_REVIEW_READ))
    except OSError:
        return None


def _source_text(record: VersionRecord) -> str | None:
    try:
        return read_regular(record.path, limit=MAX_REVIEW_READ).decode("utf-8", "replace")
    except OSError:
        return None


@main.command()
@registry_options
@click.argument("name")
@click.option("--version", "version", type=click.IntRange(min=1), default=None,
              help="Version number (default: the current version).")
@click.option("--json", "as_json", is_flag=True, help="Print the record and source as JSON.")
@capabilities_click
def show(registry: Registry, name: str, version: int | None, as_json: bool,
         capabilities: str | None) -> None:
    """Show a version's source with its gate verdict and provenance; with a capability policy
    (--capabilities or DYNTOOLS_CAPABILITIES), also what it grants of the version's
    CAPABILITIES."""
    from dyntools.registry.review import capabilities_in, capability_summary

    alias = registry.tool(name).alias
    if alias is not None:
        # An alias has no versions: what it serves is the tool it names.
        if not as_json:
            served = "" if registry.alias_of(name) else " (NOT SERVED: see dyntools review)"
            click.echo(f"# {name} is an alias of {alias}{served}; what it serves:")
        name = alias
    record = _pick(registry, name, version)
    source = _source_text(record)
    declared = capabilities_in(source.encode("utf-8")) if source is not None else None
    state = registry.tool(name)
    current = state.current
    widens: dict[str, list[str]] = {}
    if declared and current is not None and current != record.version:
        widens = declared.widens(capabilities_in(_read_bytes(state.records[current])))
    granted = capability_policy_option(capabilities)
    grants = granted.grants(declared) if granted.configured and declared else None
    if as_json:
        shown = record.as_dict()
        for decision in shown["decisions"]:
            decision["signature"] = decision_mark(decision, record.version, state.chain,
                                                  registry.trusted_keys).code
        _echo_json({**shown, "source": source, "alias": alias,
                    "capabilities": declared.as_dict() if declared is not None else {},
                    "widens_current": widens,
                    **({"grants": grants.as_dict()} if grants is not None else {})})
        return
    click.echo(f"# {name} v{record.version}"
               f"{' (current)' if current == record.version else ''}: {record.status}")
    if declared:
        click.echo(f"# capabilities: {terminal_safe(declared.summary())}")
    if widens:
        click.echo(f"# WIDENS CAPABILITIES over the current v{current}: "
                   f"{terminal_safe(capability_summary(widens))}")
    if grants is not None:
        for grant in grants:
            verdict = "granted" if grant.granted else "REFUSED"
            click.echo(f"# {grant.kind} {terminal_safe(grant.entry)}: {verdict} "
                       f"({terminal_safe(grant.reason)})")
    if record.reason:
        click.echo(f"# {record.reason_code or record.status}: {terminal_safe(record.reason)}")
    click.echo(f"# sha256 {record.sha256}  created {record.created}")
    prov = ", ".join(f"{k}={_shown_provenance(k, v)}" for k, v in record.provenance.items()
                     if v is not None)
    click.echo(f"# provenance: {terminal_safe(prov)}")
    for decision in record.decisions:
        why = f": {terminal_safe(decision.get('reason'))}" if decision.get("reason") else ""
        signed = decision_mark(decision, record.version, state.chain,
                               registry.trusted_keys).text
        click.echo(f"# {terminal_safe(decision.get('action'))} by "
                   f"{terminal_safe(decision.get('by'))} at {decision.get('time')}{signed}{why}")
    if record.signature is not None:
        checked = "" if registry.trusted_keys is not None else " (not checked: no trusted keys)"
        key = terminal_safe(str(record.signature.get("key"))[:16])
        click.echo(f"# signature: ed25519 key {key}... by "
                   f"{terminal_safe(record.signature.get('approver'))}{checked}")
    verdict = "accepted" if record.gate.get("accepted") else "rejected"
    today = " (today's)" if record.policy_digest == registry.policy.digest else ""
    click.echo(f"# gate: {verdict} under allow-list {record.policy_digest[:12]}{today}")
    for finding in record.findings:
        click.echo(f"# {finding['line']}:{finding['col']}: {finding['code']} "
                   f"{terminal_safe(finding['message'])}")
    if not record.usable and record.reason_code == "hash_mismatch":
        click.echo("# WARNING: the source below is what is on disk now, not what was approved")
    # What is on disk may not be what was approved (see the warning above): escaped too.
    click.echo(_display_source(source) if source is not None else "# (the file cannot be read)")


def _shown_provenance(key: str, value: Any) -> str:
    """One provenance value for `show`: the verification as its counts (the examples it
    passed, recorded exchanges included, are in --json)."""
    if key == "verification" and isinstance(value, dict):
        counts = value.get("counts")
        if isinstance(counts, dict):
            return " ".join(f"{n} {status}" for status, n in counts.items() if n) or "none"
    if key == "earlier_attempts" and isinstance(value, list):
        return "; ".join(f"#{a.get('attempt')} refused ({' '.join(map(str, a.get('codes', [])))})"
                         for a in value if isinstance(a, dict)) or "none"
    return str(value)


def _display_source(text: str) -> str:
    """Source (or a diff of sources) for a terminal: line ends as they are, everything else
    that could rewrite or hide text escaped (a file edited on disk is not gated)."""
    return terminal_safe(text.replace("\r\n", "\n"))


@main.command()
@registry_options
@click.argument("name")
@click.argument("a", type=click.IntRange(min=1))
@click.argument("b", type=click.IntRange(min=1))
def diff(registry: Registry, name: str, a: int, b: int) -> None:
    """Unified diff between versions A and B of a tool."""
    from dyntools.registry.review import capabilities_in, capability_summary

    old, new = registry.get(name, a), registry.get(name, b)
    texts = []
    declared = []
    for record in (old, new):
        text = _source_text(record)
        if text is None:
            raise errors.UsageError(f"{record.path} cannot be read")
        if not record.usable:
            click.echo(f"# note: v{record.version} is {record.status}: "
                       f"{terminal_safe(record.reason)}", err=True)
        texts.append(text.splitlines(keepends=True))
        declared.append(capabilities_in(text.encode("utf-8")))
    if old.sha256 == new.sha256:
        # An empty diff would read as "nothing to see": say why it is empty.
        click.echo(f"# v{a} and v{b} are identical (sha256 {old.sha256[:12]})", err=True)
    widened = declared[1].widens(declared[0]) if declared[1] is not None else {}
    if widened:
        # Called out where a reviewer looks first; stdout stays a clean unified diff.
        click.echo(f"# WIDENS CAPABILITIES: v{b} reaches what v{a} does not: "
                   f"{terminal_safe(capability_summary(widened))}", err=True)
    click.echo(_display_source("".join(difflib.unified_diff(
        texts[0], texts[1], fromfile=f"{name}/v{a}.py", tofile=f"{name}/v{b}.py"))), nl=False)


@main.command()
@registry_options
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default=None,
              help="Output format (sarif is SARIF 2.1.0 for code scanning).")
def review(registry: Registry, as_json: bool, fmt: str | None) -> None:
    """Re-gate and hash-check everything persisted. Exit 1 if anything needs attention."""
    output = "json" if as_json and fmt is None else (fmt or "text")
    report = build_review(registry)
    if output == "json":
        _echo_json(report)
    elif output == "sarif":
        _echo_json(to_review_sarif(registry))
    else:
        click.echo(render_review_text(report))
    sys.exit(EXIT_PROBLEM if report["needs_attention"] else EXIT_OK)


@main.command()
@writer_options
@click.argument("name")
@click.argument("version", type=click.IntRange(min=1))
@click.option("--reason", default=None, help="Why (recorded).")
@click.option("--by", "by", default=None, help="Who decides (default: the login name).")
@sign_key_click
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")
def rollback(registry: Registry, name: str, version: int, reason: str | None, by: str | None,
             sign_key: str | None, as_json: bool) -> None:
    """Move the current pointer of NAME back to an earlier good VERSION (history is kept)."""
    from dyntools.registry.core import default_approver

    signer = signer_option(sign_key)
    decision = ({"by": by or default_approver(), "reason": reason}
                if signer is not None or by or reason else None)
    record = registry.rollback(name, version, decision=decision, signer=signer)
    if as_json:
        _echo_json(record.as_dict())
    else:
        click.echo(f"{name}: current is now v{record.version}")


def _snapshot(registry: Registry) -> dict[str, tuple[str, ...]]:
    """One line per fact a watcher reports, keyed so a change prints once."""
    facts: dict[str, tuple[str, ...]] = {}
    for state in registry.tools():
        for record in state.records.values():
            if record.status != APPROVED:
                facts[f"{state.name}/v{record.version}"] = (
                    record.status, state.name, str(record.version), record.reason or "")
        for item in state.unrecorded:
            facts[str(item.path)] = ("unrecorded", state.name, str(item.version), item.reason)
        if state.error:
            facts[f"{state.name}/manifest"] = ("manifest_invalid", state.name, "", state.error)
        facts[f"{state.name}/current"] = (
            ("current", state.name, str(state.current), "") if state.current is not None
            else ("alias", state.name, "", f"serves {state.alias}") if state.alias is not None
            else ("current", state.name, "", "none (no version is served)"))
    return facts


@main.command()
@writer_options
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.option("--duration", type=click.FloatRange(min=0), default=None,
              help="Stop after this many seconds (default: until interrupted).")
def watch(registry: Registry, as_json: bool, duration: float | None) -> None:
    """Watch the registry and quarantine edited files live (Ctrl-C stops)."""
    lock = threading.Lock()
    seen: dict[str, tuple[str, ...]] = {}

    def emit(kind: str, tool: str, version: str, detail: str) -> None:
        if as_json:
            click.echo(json.dumps({"event": kind, "tool": tool, "version": version,
                                   "detail": detail}))
        else:
            click.echo(terminal_safe(
                f"{kind} {tool}{' v' + version if version not in ('', 'None') else ''}"
                f"{': ' + detail if detail else ''}"))
        sys.stdout.flush()

    def report_changes(_: str = "") -> None:
        with lock:
            now = _snapshot(registry)
            for key, fact in now.items():
                if seen.get(key) != fact:
                    emit(*fact)
            for key, fact in seen.items():
                if key not in now and fact[0] != "current":
                    emit("resolved", fact[1], fact[2], fact[0])
                elif key not in now:
                    emit("tool_removed", fact[1], "", "")
            seen.clear()
            seen.update(now)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    registry.subscribe(report_changes)
    watcher = registry.watch()
    emit("watching", str(registry.root), "", f"{len(registry.names())} tool(s)")
    report_changes()
    try:
        stop.wait(duration)
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
