"""`dyntools review`: everything persisted, re-checked, as one report a reviewer reads top to
bottom (text), a script reads (JSON), or a code-scanning tool reads (SARIF 2.1.0).

The report is built from an opened `Registry`, so every version in it has just been
hash-checked and re-gated. "Needs attention" means a quarantined version, an invalid manifest,
a file no manifest vouches for or, with trusted keys, a tool whose decision chain does not
vouch for what its manifest says (chain.py: no chain, a chain that does not verify or is older
than one accepted before, a pointer or a status the chain does not say); the CLI exits 1 on any
of them.
"""

from __future__ import annotations

import ast
import difflib
from itertools import pairwise
from pathlib import Path
from typing import Any

from dyntools import __version__
from dyntools.base.terminal import terminal_safe
from dyntools.gate import check_source
from dyntools.gate.capabilities import Capabilities
from dyntools.gate.findings import GateReport, to_sarif
from dyntools.registry.config import declared_capabilities
from dyntools.registry.core import Registry
from dyntools.registry.decision_marks import DOES_NOT_VERIFY, DecisionMark, decision_mark
from dyntools.registry.manifest import APPROVED, PENDING, QUARANTINED, REJECTED, RETIRED
from dyntools.registry.records import ToolState, VersionRecord
from dyntools.registry.store import read_regular


def _imports(source: bytes) -> set[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


# The most of a version file review reads: the manifest's own `size` is no bound (a forged
# entry may claim gigabytes); no gate limit worth having comes near it.
MAX_REVIEW_READ = 16 << 20


def _read(record: VersionRecord) -> bytes | None:
    try:
        # A planted huge file: never whole.
        return read_regular(record.path, limit=min(record.size, MAX_REVIEW_READ))
    except OSError:
        return None


def capabilities_in(data: bytes | None) -> Capabilities | None:
    """What a version file declares in CAPABILITIES; None when it cannot be read or parsed
    (a file edited on disk is not gated: never trust it to be well formed)."""
    if data is None:
        return None
    try:
        return declared_capabilities(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def declared_by(record: VersionRecord) -> Capabilities | None:
    return capabilities_in(_read(record))


def version_changes(older: VersionRecord, newer: VersionRecord) -> dict[str, Any]:
    """What changed between two versions: line counts, imports added or removed, and the
    capabilities the newer one declares that the older one did not (`capabilities_added`)."""
    a, b = _read(older), _read(newer)
    if a is None or b is None:
        return {"from": older.version, "to": newer.version, "available": False}
    before, after = capabilities_in(a), capabilities_in(b)
    a_lines = a.decode("utf-8", "replace").splitlines()
    b_lines = b.decode("utf-8", "replace").splitlines()
    added = removed = 0
    for line in difflib.unified_diff(a_lines, b_lines, lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    a_imports, b_imports = _imports(a), _imports(b)
    return {
        "from": older.version,
        "to": newer.version,
        "available": True,
        "lines_added": added,
        "lines_removed": removed,
        "imports_added": sorted(b_imports - a_imports),
        "imports_removed": sorted(a_imports - b_imports),
        "capabilities_added": after.widens(before) if after is not None else {},
    }


def _tool_review(state: ToolState, trusted: frozenset[str] | None) -> dict[str, Any]:
    records = [state.records[v] for v in sorted(state.records)]
    review = {
        **state.as_dict(),
        "changes": [version_changes(a, b) for a, b in pairwise(records)],
    }
    for version in review["versions"]:
        declared = declared_by(state.records[version["version"]])
        version["capabilities"] = declared.as_dict() if declared is not None else None
        for decision in version.get("decisions", []):
            # What the decision may claim: "signed" only when a verified chain record says so.
            decision["signature"] = decision_mark(decision, version["version"], state.chain,
                                                  trusted).code
    return review


def _unverified_decisions(tool: dict[str, Any]) -> int:
    return sum(1 for version in tool["versions"] for decision in version.get("decisions", [])
               if decision.get("signature") == DOES_NOT_VERIFY)


def build_review(registry: Registry) -> dict[str, Any]:
    tools = [_tool_review(state, registry.trusted_keys) for state in registry.tools()]
    unverified = sum(_unverified_decisions(tool) for tool in tools)
    counts = {APPROVED: 0, REJECTED: 0, QUARANTINED: 0, PENDING: 0, RETIRED: 0}
    for state in registry.tools():
        for record in state.records.values():
            counts[record.status] = counts.get(record.status, 0) + 1
    unrecorded = [u.as_dict() for u in registry.unrecorded()]
    broken = [state.name for state in registry.broken_tools()]
    chains = [state.name for state in registry.tools()
              if state.chain is not None and state.chain.needs_attention]
    aliases = sum(1 for tool in tools if tool["alias"] is not None)
    return {
        "registry": str(registry.root),
        "policy": {"path": registry.policy.path, "digest": registry.policy.digest},
        "summary": {
            "tools": len(tools) - aliases,
            "aliases": aliases,
            "versions": sum(counts.values()),
            **counts,
            "unrecorded": len(unrecorded),
            "invalid_manifests": len(broken),
            "chain_problems": len(chains),
            "unverified_decisions": unverified,
        },
        "trusted_keys": registry.trusted_keys is not None,
        "needs_attention": bool(counts[QUARANTINED] or unrecorded or broken or chains
                                or unverified),
        "tools": tools,
        "unrecorded": unrecorded,
    }


def _v(version: Any) -> str:
    return f"v{version}" if version is not None else "none"


def _short(digest: str | None) -> str:
    return (digest or "")[:12] or "-"


def render_review_text(review: dict[str, Any]) -> str:
    s = review["summary"]
    policy = review["policy"]
    out = [
        f"dyntools registry review: {review['registry']}",
        f"allow-list: {policy['path']} (sha256 {_short(policy['digest'])})",
        f"{s['tools']} tool(s)"
        + (f" and {s['aliases']} alias(es)" if s.get("aliases") else "")
        + f", {s['versions']} version(s): {s[APPROVED]} approved, "
        f"{s[QUARANTINED]} quarantined, {s[REJECTED]} rejected, {s[PENDING]} pending, "
        f"{s[RETIRED]} retired; {s['unrecorded']} unrecorded "
        f"file(s); {s['invalid_manifests']} invalid manifest(s)"
        + (f"; {s['chain_problems']} decision chain problem(s); "
           f"{s['unverified_decisions']} decision(s) claiming a signature that does not verify"
           if review["trusted_keys"]
           else "; decision chains and signatures not checked (no trusted keys)"),
    ]
    for tool in review["tools"]:
        current = f"v{tool['current']}" if tool["current"] is not None else "none"
        out.append("")
        header = f"{tool['name']}  (current {current}"
        if tool["alias"] is not None:
            header = f"{tool['name']}  (an alias of {tool['alias']}: no versions of its own"
        if tool["recorded_current"] != tool["current"]:
            header += f"; the manifest says v{tool['recorded_current']}"
        out.append(header + ")")
        if tool["error"]:
            out.append(f"  MANIFEST INVALID: {tool['error']}")
        out.extend(_render_chain(tool["chain"]))
        changes = {c["to"]: c for c in tool["changes"]}
        for version in tool["versions"]:
            out.extend(_render_version(version, policy["digest"], changes.get(version["version"])))
        for item in tool["unrecorded"]:
            out.append(
                f"  UNRECORDED {terminal_safe(item['path'])}: {terminal_safe(item['reason'])}"
            )
        moves = [
            f"alias {terminal_safe(e.get('from') or 'none')} -> "
            f"{terminal_safe(e.get('to') or 'none')} ({e.get('time')})"
            if e.get("action") == "alias" else
            f"{e.get('action')} {_v(e.get('from'))} -> {_v(e.get('to'))} ({e.get('time')})"
            for e in tool["history"]
        ]
        if moves:
            out.append("  pointer history: " + "; ".join(moves))
    stray = [u for u in review["unrecorded"] if not any(
        u["path"] == t_u["path"] for t in review["tools"] for t_u in t["unrecorded"])]
    for item in stray:
        out.append(f"UNRECORDED {terminal_safe(item['path'])}: {terminal_safe(item['reason'])}")
    out.append("")
    out.append("needs attention" if review["needs_attention"] else "all versions check out")
    return "\n".join(out)


def _render_chain(chain: dict[str, Any] | None) -> list[str]:
    """The tool's decision chain, as checked with trusted keys (nothing without them)."""
    if chain is None:
        return []
    lines = []
    head = chain["head"]
    if chain["code"] is not None:
        lines.append(f"  DECISION CHAIN: {chain['code'].upper()}: "
                     f"{terminal_safe(chain['problem'])}")
    elif head is not None:
        lines.append(f"  decision chain: {chain['length']} signed record(s), head "
                     f"#{head['seq']} {terminal_safe(head['action'])} by "
                     f"{terminal_safe(head['by'])} at {terminal_safe(head['time'])} "
                     f"(key {terminal_safe(head['key'][:12])}...)")
    else:
        lines.append("  decision chain: none (nothing is served)")
    shown = {chain["problem"]} if chain["code"] is not None else set()
    for disagreement in chain["disagreements"]:
        if not any(disagreement in text for text in shown if text):
            lines.append(f"  CHAIN DISAGREES: {terminal_safe(disagreement)}")
    if chain["hint"] and (chain["code"] is not None or chain["disagreements"]):
        lines.append(f"       fix: {terminal_safe(chain['hint'])}")
    return lines


def _render_version(
    version: dict[str, Any], policy_digest: str, change: dict[str, Any] | None
) -> list[str]:
    prov = version["provenance"]
    who = "/".join(str(prov.get(k)) for k in ("generator", "model") if prov.get(k)) or "unknown"
    status = version["status"]
    under = (
        "today's allow-list"
        if version["policy_digest"] == policy_digest
        else f"allow-list {_short(version['policy_digest'])}"
    )
    lines = [
        f"  v{version['version']:<3} {status.upper() if status != APPROVED else status:<12} "
        f"sha256 {_short(version['sha256'])}  {version['created']}  by {who}, approved under "
        f"{under}"
    ]
    if status != APPROVED:
        reason = terminal_safe(version["reason"])
        lines.append(f"       {version['reason_code'] or status}: {reason}")
    for decision in version.get("decisions", []):
        why = f": {terminal_safe(decision.get('reason'))}" if decision.get("reason") else ""
        signed = DecisionMark(decision.get("signature")).text
        lines.append(f"       {terminal_safe(decision.get('action'))} by "
                     f"{terminal_safe(decision.get('by'))} at {decision.get('time')}"
                     f"{signed}{why}")
    for finding in version["findings"]:
        lines.append(
            f"       {finding['line']}:{finding['col']}: {finding['code']} {finding['message']}"
        )
    declared = version.get("capabilities")
    if declared:
        lines.append(f"       capabilities: {terminal_safe(capability_summary(declared))}")
    if change is not None:
        if change["available"]:
            detail = f"+{change['lines_added']} -{change['lines_removed']} lines"
            if change["imports_added"]:
                detail += "; imports added: " + ", ".join(change["imports_added"])
            if change["imports_removed"]:
                detail += "; imports removed: " + ", ".join(change["imports_removed"])
        else:
            detail = "one of the files is unreadable"
        lines.append(f"       changes from v{change['from']}: {detail}")
        if change.get("capabilities_added"):
            lines.append(f"       WIDENS CAPABILITIES over v{change['from']}: "
                         f"{terminal_safe(capability_summary(change['capabilities_added']))}")
    return lines


def capability_summary(declared: dict[str, list[str]]) -> str:
    """`http: a.com, b.org; tools: x` for a declaration (or a widening) as a dict."""
    return "; ".join(f"{kind}: {', '.join(entries)}" for kind, entries in declared.items())


# Registry-level problems in SARIF: not gate rules, so they get their own rule ids.
_REGISTRY_RULES = {
    "hash_mismatch": "The version file no longer matches the SHA-256 it was approved with.",
    "file_missing": "A recorded version file is missing.",
    "not_a_regular_file": "A recorded version file is a symlink or not a regular file.",
    "unreadable": "A recorded version file cannot be read.",
    "quarantined_by_reviewer": "A reviewer quarantined this version.",
    "unsigned": "Trusted keys are configured and this version carries no signature.",
    "bad_signature": "The version's signature is invalid or not by a trusted key.",
    "gate_rejected": "The version fails today's gate.",
    "name_mismatch": "The version's NAME is not its folder's tool name.",
    "hard_linked": "The version file has more than one hard link.",
    "unrecorded": "A file in the registry that no manifest vouches for.",
    "manifest_invalid": "A tool's manifest cannot be parsed; none of its versions is trusted.",
    "chain_mismatch": "The tool's manifest says something its decision chain does not (a "
                      "pointer or status no signed decision made), or the chain does not "
                      "verify, or it is older than a head this consumer accepted.",
    "no_chain": "Trusted keys are configured and the tool serves a version no signed decision "
                "vouches for: run dyntools sign-state.",
    "trust_state": "The record of accepted decision-chain heads cannot be read or written.",
}


def to_review_sarif(registry: Registry) -> dict[str, Any]:
    """Gate findings of versions that fail today's gate, plus registry-level problems."""
    reports: list[GateReport] = []
    extra: list[dict[str, Any]] = []
    for record in registry.quarantined():
        if record.findings:
            data = _read(record)
            if data is not None:
                reports.append(check_source(data, registry.policy, path=str(record.path)))
        elif record.reason_code:
            extra.append(_registry_result(record.reason_code, record.reason or "", record.path))
    for item in registry.unrecorded():
        extra.append(_registry_result("unrecorded", item.reason, item.path))
    for state in registry.broken_tools():
        extra.append(_registry_result("manifest_invalid", state.error or "",
                                      registry.root / state.name / "manifest.json"))
    for state in registry.tools():
        chain = state.chain
        if chain is not None and chain.needs_attention:
            text = chain.problem or "; ".join(chain.disagreements)
            extra.append(_registry_result(chain.code or "chain_mismatch",
                                          text + (f" ({chain.hint})" if chain.hint else ""),
                                          registry.root / state.name / "manifest.json"))
    sarif = to_sarif(reports, __version__)
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for code, text in _REGISTRY_RULES.items():
        rules.append({
            "id": f"registry/{code}",
            "name": code.replace("_", "-"),
            "shortDescription": {"text": code.replace("_", " ")},
            "fullDescription": {"text": text},
            "defaultConfiguration": {"level": "error"},
            "properties": {"family": "registry", "tags": ["security", "registry"]},
        })
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    for result in extra:
        result["ruleIndex"] = index[result["ruleId"]]
    run["results"].extend(extra)
    return sarif


def _registry_result(code: str, message: str, path: Path) -> dict[str, Any]:
    uri = Path(path).resolve().as_uri()
    return {
        "ruleId": f"registry/{code}",
        "level": "error",
        "message": {"text": message or code},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}],
    }
