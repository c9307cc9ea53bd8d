"""`Dyntools.health()` (issue 32): each finding on a registry built to have it, and one built
not to; the report changes nothing served. Every version runs in real sandbox workers."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from dyntools.base.log import configure_logging, flush_logs
from dyntools.capabilities import policy_from_mapping
from dyntools.errors import DyntoolsError, UsageError
from dyntools.pipeline.duplicates import Candidate, is_alias_pair, judged
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry

from .conftest import tool_source

ECHO = [{"params": {"text": "a"}, "result": {"echo": "a"}}]
UPPER = [{"params": {"text": "a"}, "result": {"u": "A"}}]


def add(registry: Registry, name: str, source: str, **provenance: Any) -> Any:
    return registry.add_version(name, source, {"generator": "test", **provenance})


def upper(name: str = "shout", examples: list[Any] | None = None, **kw: Any) -> str:
    return tool_source(name, result='{"u": params["text"].upper()}',
                       examples=UPPER if examples is None else examples, **kw)


def health(root: Path, **options: Any) -> dict[str, Any]:
    capabilities = options.pop("capabilities", None)
    with Dyntools(root, capabilities=capabilities, keep_failed_calls=False) as dt:
        return dt.health(**options)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_a_healthy_registry_passes_and_health_changes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "reg"
    registry = Registry.open(root)
    add(registry, "echo_text", tool_source("echo_text", examples=ECHO))
    add(registry, "shout", upper())
    before = snapshot(root)
    report = health(root)
    assert report["ok"] is True
    assert report["regressions"] == [] and report["unverified"] == []
    assert report["checked"]["versions"] == 2 and report["checked"]["examples"] == 2
    assert set(report) >= {"regressions", "unverified", "duplicates", "usage", "unused",
                           "stale_pending", "drift"}
    assert snapshot(root) == before  # nothing written: no manifest, no audit, no kept calls


def test_a_version_that_no_longer_passes_its_recorded_contract_is_a_regression(
        tmp_path: Path) -> None:
    root = tmp_path / "reg"
    registry = Registry.open(root)
    # what it passed when it was verified (its provenance), which it fails today
    promised = {"params": {"text": "b"}, "result": {"u": "b"}}
    add(registry, "shout", upper(), verification={"examples": [promised]})
    add(registry, "crash", tool_source("crash", result='{"n": 1 // len(params["text"])}',
                                       examples=[{"params": {"text": ""}, "result": {"n": 0}}]))
    report = health(root)
    assert report["ok"] is False
    by_tool = {entry["tool"]: entry for entry in report["regressions"]}
    assert by_tool["shout"] == {"tool": "shout", "version": 1, "got": {"u": "B"},
                                "example": {**promised, "origin": "contract"}}
    assert by_tool["crash"]["error"]["reason"] == "runtime_error"
    assert "ZeroDivisionError" in by_tool["crash"]["error"]["message"]
    assert "got" not in by_tool["crash"]


def test_a_quarantined_current_version_is_a_regression(tmp_path: Path) -> None:
    root = tmp_path / "reg"
    registry = Registry.open(root)
    add(registry, "echo_text", tool_source("echo_text", examples=ECHO))
    path = root / "echo_text" / "v1.py"
    os.chmod(path, 0o644)
    path.write_text(path.read_text() + "\n# edited\n")
    report = health(root)
    (entry,) = report["regressions"]
    assert entry["reason"] == "quarantined" and entry["version"] == 1
    assert entry["error"]["reason"] == "hash_mismatch"


def test_the_inherited_contract_restarts_at_a_contract_change(tmp_path: Path) -> None:
    root = tmp_path / "reg"
    registry = Registry.open(root)
    old = {"params": {"text": "a"}, "result": {"echo": "a"}}
    add(registry, "tag", tool_source("tag", examples=[old]),
        verification={"examples": [old]})
    changed = tool_source("tag", result='{"echo": "<" + params["text"] + ">"}',
                          examples=[{"params": {"text": "a"}, "result": {"echo": "<a>"}}])
    add(registry, "tag", changed, contract_change=True,
        verification={"examples": [{"params": {"text": "a"}, "result": {"echo": "<a>"}}]})
    assert health(root)["ok"] is True  # v1's promise went with the contract change


@pytest.mark.parametrize("case", ["no_examples", "exchanges_missing", "not_granted"])
def test_a_version_that_cannot_be_re_verified_is_unverified_and_fails(
        tmp_path: Path, case: str) -> None:
    root = tmp_path / "reg"
    registry = Registry.open(root)
    capabilities = None
    if case == "no_examples":
        add(registry, "bare", tool_source("bare"))
    elif case == "exchanges_missing":  # a request no recorded exchange answers
        add(registry, "bare", (
            '"""Fetches."""\nimport host\n\nNAME = "bare"\nDESCRIPTION = "Fetches."\n'
            'PARAMS = {"type": "object"}\nCAPABILITIES = {"http": ["api.example.com"]}\n'
            'EXAMPLES = [{"params": {}, "result": {"s": 200}}]\n\n\ndef run(params):\n'
            '    return {"s": host.http_get("https://api.example.com/")["status"]}\n'))
    else:  # it composes a tool the operator's policy does not allow it to
        add(registry, "echo_text", tool_source("echo_text", examples=ECHO))
        add(registry, "bare", (
            '"""Composes."""\nimport host\n\nNAME = "bare"\nDESCRIPTION = "Composes."\n'
            'PARAMS = {"type": "object"}\nCAPABILITIES = {"tools": ["echo_text"]}\n'
            'EXAMPLES = [{"params": {}, "result": {"echo": "a"}}]\n\n\ndef run(params):\n'
            '    return host.call_tool("echo_text", {"text": "a"})\n'))
        capabilities = policy_from_mapping({"tools": {"allow": []}})
    report = health(root, capabilities=capabilities)
    assert report["ok"] is False and report["regressions"] == []
    reasons = {(e["tool"], e["reason"]) for e in report["unverified"]}
    assert ("bare", case) in reasons, report["unverified"]
    assert all(e["why"] for e in report["unverified"])


def test_a_tool_whose_manifest_cannot_be_read_is_unverified(tmp_path: Path) -> None:
    root = tmp_path / "reg"
    add(Registry.open(root), "echo_text", tool_source("echo_text", examples=ECHO))
    manifest = root / "echo_text" / "manifest.json"
    os.chmod(manifest, 0o644)
    manifest.write_text("{not json")
    report = health(root)
    assert [(e["tool"], e["version"], e["reason"]) for e in report["unverified"]] == [
        ("echo_text", None, "manifest_invalid")]
    assert report["ok"] is False


def test_a_composition_the_policy_grants_is_re_verified(tmp_path: Path) -> None:
    root = tmp_path / "reg"
    registry = Registry.open(root)
    add(registry, "echo_text", tool_source("echo_text", examples=ECHO))
    add(registry, "composer", (
        '"""Composes."""\nimport host\n\nNAME = "composer"\nDESCRIPTION = "Composes."\n'
        'PARAMS = {"type": "object"}\nCAPABILITIES = {"tools": ["echo_text"]}\n'
        'EXAMPLES = [{"params": {}, "result": {"echo": "a"}}]\n\n\ndef run(params):\n'
        '    return host.call_tool("echo_text", {"text": "a"})\n'))
    report = health(root, capabilities=policy_from_mapping({"tools": {"allow": ["echo_text"]}}))
    assert report["ok"] is True, report
    assert report["drift"] == []


def test_a_layer_missing_here_is_unverified(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.missing_layer import no_seccomp

    root = tmp_path / "reg"
    add(Registry.open(root), "echo_text", tool_source("echo_text", examples=ECHO))
    no_seccomp(monkeypatch)
    monkeypatch.delenv("DYNTOOLS_ALLOW_WEAKER_SANDBOX", raising=False)
    report = health(root)
    (entry,) = report["unverified"]
    assert entry["reason"] == "layer_unavailable" and "seccomp" in entry["why"]


def test_tools_that_read_alike_and_give_the_same_results_are_duplicates(
        tmp_path: Path) -> None:
    root = tmp_path / "reg"
    registry = Registry.open(root)
    description = "Echoes the text it is given back to the caller."
    add(registry, "echo_text", tool_source("echo_text", examples=ECHO).replace(
        "Test tool echo_text", description))
    add(registry, "echo_back", tool_source(
        "echo_back", examples=[{"params": {"text": "zz"}, "result": {"echo": "zz"}}]).replace(
        "Test tool echo_back", description))
    # reads alike, same params, different results: not a duplicate
    add(registry, "echo_twice", tool_source(
        "echo_twice", result='{"echo": params["text"] * 2}',
        examples=[{"params": {"text": "a"}, "result": {"echo": "aa"}}]).replace(
        "Test tool echo_twice", description))
    report = health(root)
    assert report["ok"] is True
    assert [d["tools"] for d in report["duplicates"]] == [["echo_back", "echo_text"]]
    (duplicate,) = report["duplicates"]
    assert duplicate["compared"] == 2 and duplicate["similarity"] >= 0.6
    assert report["checked"]["duplicate_candidates"] == 3  # every pair read alike


def test_an_alias_is_not_a_duplicate() -> None:
    aliases = {"count_words": "word_count"}
    assert is_alias_pair("count_words", "word_count", aliases.get)
    assert is_alias_pair("word_count", "count_words", aliases.get)
    assert is_alias_pair("a", "b", {"a": "c", "b": "c"}.get)
    assert not is_alias_pair("word_count", "line_count", aliases.get)
    # the rule on results: one compared example that differs, or fails, is not the same job
    pair = Candidate(("a", "b"), 0.9, ({"x": 1}, {"x": 2}))
    same = {'{"x":1}': ("ok", "1"), '{"x":2}': ("ok", "2")}
    assert judged([pair], {"a": same, "b": same})[0]["tools"] == ["a", "b"]
    assert judged([pair], {"a": same, "b": {**same, '{"x":2}': ("ok", "3")}}) == []
    failed = {'{"x":1}': ("error", "runtime_error"), '{"x":2}': ("ok", "2")}
    assert judged([pair], {"a": failed, "b": failed}) == []


def test_usage_unused_stale_pending_and_drift(tmp_path: Path) -> None:
    root = tmp_path / "reg"
    registry = Registry.open(root)
    add(registry, "echo_text", tool_source("echo_text", examples=ECHO))
    add(registry, "shout", upper())
    add(registry, "idle", tool_source("idle", examples=[{"params": {"text": "q"},
                                                         "result": {"echo": "q"}}]))
    registry.add_version("shout", upper(), {"generator": "test"}, status="pending",
                         reason="awaiting approval")
    add(registry, "fetch", (
        '"""Fetches."""\nimport host\n\nNAME = "fetch"\nDESCRIPTION = "Fetches a page."\n'
        'PARAMS = {"type": "object"}\nCAPABILITIES = {"http": ["api.example.com"]}\n'
        'EXAMPLES = [{"params": {}, "result": {"s": 200}, "http": [{"request": {"method": '
        '"GET", "url": "https://api.example.com/"}, "response": {"status": 200, "text": ""}}]}]'
        '\n\n\ndef run(params):\n'
        '    return {"s": host.http_get("https://api.example.com/")["status"]}\n'))
    log = tmp_path / "audit.log"
    configure_logging("error", audit_path=log)
    try:
        with Dyntools(root) as dt:
            for text in ("a", "b", "c"):
                dt.call("echo_text", {"text": text})
            with pytest.raises(DyntoolsError):
                dt.call("shout", {"text": 7})  # refused by its schema
            dt.call("shout", {"text": "x"})
        flush_logs()
    finally:
        configure_logging("warning")
    with log.open("a") as file:  # what anyone with access may append: passed over
        file.write('{"event": "pipeline.station", "station": "execute", "tool": "../x"}\n')
        file.write("not json at all, but it says \"execute\"\n")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        file.write(json.dumps({"event": "pipeline.station", "station": "execute",
                               "tool": "echo_text", "version": 1, "outcome": "failed",
                               "reason": "\x1b]52;c;cGF3bmVk\x07", "duration_ms": 1,
                               "timestamp": stamp}) + "\n")
    report = health(root, audit_log=log, now=time.time() + 20 * 86400, since=60 * 86400,
                    stale_days=14)
    usage = report["usage"]
    assert usage["source"]["audit_log"] == str(log)
    assert usage["source"]["execute_events"] == 5 and usage["source"]["skipped"] == 3
    echo, shout = usage["tools"]["echo_text"], usage["tools"]["shout"]
    assert (echo["calls"], echo["errors"], echo["error_rate"]) == (3, 0, 0.0)
    assert echo["p50_ms"] is not None and echo["p99_ms"] >= echo["p50_ms"]
    assert shout["errors_by_reason"] == {"invalid_params": {"count": 1, "rate": 0.5}}
    assert report["unused"]["tools"] == ["fetch", "idle"]
    assert {"tool": "idle", "version": 1} in report["unused"]["versions"]
    (stale,) = report["stale_pending"]
    assert (stale["tool"], stale["version"]) == ("shout", 2) and stale["age_days"] >= 19
    assert stale["approve_command"] == "dyntools approve shout 2"
    (drift,) = report["drift"]
    assert drift["tool"] == "fetch" and drift["refused"][0]["kind"] == "http"
    # the same window seen from now: nothing is stale yet
    assert health(root, audit_log=log)["stale_pending"] == []


def test_without_an_audit_log_usage_is_empty_with_a_note(tmp_path: Path) -> None:
    root = tmp_path / "reg"
    add(Registry.open(root), "echo_text", tool_source("echo_text", examples=ECHO))
    report = health(root, audit_log=tmp_path / "missing.log")
    assert report["usage"]["tools"] == {}
    assert "no audit log" in report["usage"]["source"]["note"]
    assert report["unused"] == {"tools": [], "versions": [],
                                "note": report["usage"]["source"]["note"]}


@pytest.mark.parametrize("options", [{"since": 0}, {"since": -1}, {"stale_days": -1},
                                     {"jobs": 0}, {"jobs": True}, {"since": float("nan")}])
def test_bad_options_are_usage_errors(tmp_path: Path, options: dict[str, Any]) -> None:
    root = tmp_path / "reg"
    Registry.open(root)
    with pytest.raises(UsageError):
        health(root, **options)


def test_the_report_is_json_with_what_the_tool_returned_kept_as_data(tmp_path: Path) -> None:
    root = tmp_path / "reg"
    add(Registry.open(root), "shout", upper(), verification={"examples": [
        {"params": {"text": "\x1b[31m"}, "result": {"u": "x"}}]})
    report = health(root)
    assert json.loads(json.dumps(report)) == report
    assert report["regressions"][0]["got"] == {"u": "\x1b[31M"}


def test_a_manifest_an_attacker_edited_fails_closed_with_and_without_trusted_keys(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dyntools.registry.signing import generate_keypair, load_signing_key, load_trusted_keys

    monkeypatch.setenv("DYNTOOLS_TRUST_STATE", str(tmp_path / "state"))
    private, public, _ = generate_keypair(tmp_path / "alice.key")
    signer, trusted = load_signing_key(private), load_trusted_keys(public)
    root = tmp_path / "reg"
    keyed = Registry.open(root, trusted_keys=trusted)
    for text in ("a", "b"):
        keyed.add_version("echo_text", tool_source("echo_text", examples=ECHO,
                                                   body=f"_ = {text!r}"),
                          {"generator": "test"}, signer=signer)
    path = root / "echo_text" / "manifest.json"
    good = path.read_text()

    def edited(change: Any, keys: Any) -> dict[str, Any]:
        raw = json.loads(good)
        change(raw)
        os.chmod(path, 0o644)
        path.write_text(json.dumps(raw))
        with Dyntools(Registry.open(root, trusted_keys=keys), keep_failed_calls=False) as dt:
            return dt.health()

    assert edited(lambda raw: None, trusted)["ok"] is True
    # the pointer moved by hand: the signed chain says otherwise
    moved = edited(lambda raw: raw.__setitem__("current", 1), trusted)
    assert [(e["reason"], e["why"].split(":")[0]) for e in moved["unverified"]] == [
        ("chain", "chain_mismatch")]
    assert moved["ok"] is False
    # the chain removed: this consumer accepted it before
    dropped = edited(lambda raw: raw.__setitem__("chain", []), trusted)
    assert [e["reason"] for e in dropped["unverified"]] == ["chain"] and not dropped["ok"]

    # a version's hash rewritten (the source swapped): quarantined, keys or not
    def swapped(raw: dict[str, Any]) -> None:
        raw["versions"][-1]["sha256"] = "0" * 64

    for keys in (trusted, None):
        report = edited(swapped, keys)
        assert [(e["version"], e["reason"], e["error"]["reason"])
                for e in report["regressions"]] == [(2, "quarantined", "hash_mismatch")]
        assert report["ok"] is False


@pytest.mark.parametrize("recorded", [
    {"verification": {"examples": [{"params": "not an object", "result": {}}]}},
    {"counterexamples": [{"params": {"text": "a"}}]},
    {"counterexamples": "not a list"},
])
def test_a_recorded_contract_that_does_not_parse_is_unverified(
        tmp_path: Path, recorded: dict[str, Any]) -> None:
    root = tmp_path / "reg"
    add(Registry.open(root), "echo_text", tool_source("echo_text", examples=ECHO), **recorded)
    report = health(root)
    assert [(e["version"], e["reason"]) for e in report["unverified"]] == [
        (1, "contract_invalid")]
    assert report["ok"] is False


def test_a_recorded_contract_that_parses_is_re_verified(tmp_path: Path) -> None:
    root = tmp_path / "reg"
    add(Registry.open(root), "echo_text", tool_source("echo_text", examples=ECHO),
        counterexamples=[{"params": {"text": "b"}, "result": {"echo": "b"}}])
    report = health(root)
    assert report["ok"] is True and report["checked"]["examples"] == 2
