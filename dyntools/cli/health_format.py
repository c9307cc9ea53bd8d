"""`dyntools health` as text a person reads top to bottom, and as SARIF 2.1.0 for code
scanning. Both are built from the one report dict (`Dyntools.health()`, what `--json` prints).
Tool-controlled text (results, messages, descriptions) is escaped for the terminal; SARIF is
JSON, escaped by its encoder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dyntools import __version__
from dyntools.base.terminal import terminal_safe

SHOWN = 160

RULES: dict[str, tuple[str, str]] = {
    # id -> (level, what it means)
    "regression": ("error", "A served version no longer passes its contract (its EXAMPLES, "
                            "what it passed when verified, the tool's counterexamples) under "
                            "this run's allow-list and Python, or the pointer names a "
                            "quarantined version."),
    "unverified": ("error", "A served version could not be re-verified (no examples, a "
                            "capability not granted, a layer missing, recorded exchanges "
                            "missing, a contract the decision chain says was edited): it "
                            "counts as a failure."),
    "duplicate": ("warning", "Two current tools read alike, take the same params and give the "
                             "same results on each other's examples."),
    "unused": ("note", "A current tool no call named in the window."),
    "stale_pending": ("warning", "A version has waited for a reviewer past --stale-days."),
    "drift": ("warning", "A tool declares capabilities the operator's policy does not grant."),
}


def _json(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(type(value).__name__)
    return terminal_safe(text if len(text) <= SHOWN else text[:SHOWN] + "...")


def _where(entry: dict[str, Any]) -> str:
    version = entry.get("version")
    return f"{entry.get('tool')}" + (f" v{version}" if version is not None else "")


def regression_line(entry: dict[str, Any]) -> str:
    if entry.get("reason") == "quarantined":
        error = entry.get("error") or {}
        return (f"{_where(entry)}: quarantined ({terminal_safe(str(error.get('reason')))}: "
                f"{terminal_safe(str(error.get('message'))[:SHOWN])})")
    example = entry.get("example")
    head = _where(entry)
    if isinstance(example, dict):
        head += (f": {example.get('origin')} example {_json(example.get('params'))} expected "
                 f"{_json(example.get('result'))}")
    if "got" in entry:
        return f"{head}, got {_json(entry['got'])}"
    error = entry.get("error") or {}
    return (f"{head}: {terminal_safe(str(error.get('reason')))}: "
            f"{terminal_safe(str(error.get('message'))[:SHOWN])}")


def render_text(report: dict[str, Any]) -> str:
    checked = report["checked"]
    lines = [
        f"dyntools health of {terminal_safe(report['registry'])} (Python {report['python']}, "
        f"allow-list {report['allowlist'][:12]}): {checked['tools']} tool(s), "
        f"{checked['versions']} version(s) re-verified ({checked['examples']} example(s), "
        f"{checked['jobs']} at a time) in {report['duration_ms'] / 1000:.1f} s",
    ]

    def section(title: str, entries: list[Any], line: Any) -> None:
        lines.append(f"{title} ({len(entries)})" if entries else f"{title}: none")
        lines.extend(f"  {line(entry)}" for entry in entries)

    section("regressions", report["regressions"], regression_line)
    section("unverified", report["unverified"],
            lambda e: f"{_where(e)}: {e['reason']}: {terminal_safe(str(e['why']))[:2 * SHOWN]}")
    section("duplicates", report["duplicates"],
            lambda e: f"{' ~ '.join(e['tools'])} (similarity {e['similarity']:.2f}, "
                      f"{e['compared']} example(s) alike)")
    usage = report["usage"]
    source = usage["source"]
    if source["note"]:
        lines.append(f"usage: {terminal_safe(source['note'])}")
    else:
        lines.append(f"usage: {source['execute_events']} call(s) from "
                     f"{terminal_safe(str(source['audit_log']))} since {source['since']}"
                     + (f" ({source['skipped']} line(s) skipped)" if source["skipped"] else ""))
        for tool, row in usage["tools"].items():
            reasons = ", ".join(f"{terminal_safe(r)} {v['count']}"
                                for r, v in row["errors_by_reason"].items())
            lines.append(f"  {tool}: {row['calls']} call(s), {row['error_rate']:.1%} failed"
                         + (f" ({reasons})" if reasons else "")
                         + f", p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms")
    unused = report["unused"]
    if unused["note"] is None:
        lines.append(f"unused: {len(unused['tools'])} tool(s)"
                     + (f" ({', '.join(unused['tools'][:20])}"
                        f"{', ...' if len(unused['tools']) > 20 else ''})" if unused["tools"]
                        else "")
                     + f", {len(unused['versions'])} approved version(s) never called")
    section("stale pending", report["stale_pending"],
            lambda e: f"{_where(e)} pending for {e['age_days']} day(s): {e['approve_command']}")
    section("drift", report["drift"],
            lambda e: f"{_where(e)}: " + "; ".join(
                f"{g['kind']} {terminal_safe(g['entry'])} ({terminal_safe(g['reason'])})"
                for g in e["refused"]))
    failed = len(report["regressions"]) + len(report["unverified"])
    lines.append("result: ok" if report["ok"] else
                 f"result: FAIL ({len(report['regressions'])} regression(s), "
                 f"{len(report['unverified'])} unverified)" if failed else "result: FAIL")
    return "\n".join(lines)


def to_sarif(report: dict[str, Any]) -> dict[str, Any]:
    root = Path(report["registry"])
    rules = [{"id": f"health/{code}", "name": code.replace("_", "-"),
              "shortDescription": {"text": code.replace("_", " ")},
              "fullDescription": {"text": text}, "defaultConfiguration": {"level": level},
              "properties": {"family": "health", "tags": ["health"]}}
             for code, (level, text) in RULES.items()]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results: list[dict[str, Any]] = []

    def add(code: str, message: str, tool: str, version: int | None) -> None:
        path = root / tool / (f"v{version}.py" if version is not None else "manifest.json")
        results.append({
            "ruleId": f"health/{code}", "ruleIndex": index[f"health/{code}"],
            "level": RULES[code][0], "message": {"text": message},
            "locations": [{"physicalLocation": {"artifactLocation": {
                "uri": path.resolve().as_uri()}}}]})

    for entry in report["regressions"]:
        add("regression", regression_line(entry), entry["tool"], entry.get("version"))
    for entry in report["unverified"]:
        add("unverified", f"{entry['reason']}: {entry['why']}", entry["tool"],
            entry.get("version"))
    for entry in report["duplicates"]:
        add("duplicate", f"{' and '.join(entry['tools'])}: {entry['why']}", entry["tools"][0],
            None)
    if report["unused"]["note"] is None:
        for tool in report["unused"]["tools"]:
            add("unused", f"{tool} was not called since {report['usage']['source']['since']}",
                tool, None)
    for entry in report["stale_pending"]:
        add("stale_pending", f"pending for {entry['age_days']} day(s): "
                             f"{entry['approve_command']}", entry["tool"], entry["version"])
    for entry in report["drift"]:
        add("drift", "; ".join(f"{g['kind']} {g['entry']}: {g['reason']}"
                               for g in entry["refused"]), entry["tool"], entry["version"])
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "dyntools-health", "version": __version__,
                                      "rules": rules}},
                  "results": results}],
    }
