"""The pieces under the pages: the audit-log timeline, `visible`, source marking, the
session and Host rules. (The pages themselves are tested in the browser.)"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dyntools.ui.content import parse
from dyntools.ui.queries import diff_rows
from dyntools.ui.render import environment, source_lines, visible
from dyntools.ui.runs import CALL, DECISION, ENSURE, RunFeed
from dyntools.ui.security import Session, allowed_hosts, bind, check_token, origin_of


def _stamp(seconds_ago: float = 0.0) -> str:
    return (datetime.now(UTC) - timedelta(seconds=seconds_ago)).isoformat().replace(
        "+00:00", "Z")


def _station(tool: str, station: str, outcome: str = "ok", *, ago: float = 0.0,
             version: int | None = None, detail: str = "") -> dict[str, Any]:
    return {"component": "pipeline", "event": "pipeline.station", "tool": tool,
            "station": station, "outcome": outcome, "duration_ms": 1.5, "version": version,
            "reason": None, "detail": detail, "timestamp": _stamp(ago)}


def _write(path: Path, events: list[Any], *, mode: str = "a") -> None:
    with open(path, mode, encoding="utf-8") as handle:
        for event in events:
            handle.write((event if isinstance(event, str) else json.dumps(event)) + "\n")


def test_runs_are_grouped_by_tool_from_lookup_to_lookup(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    _write(log, [
        _station("a", "lookup", "miss"),
        _station("b", "lookup", "hit", version=1),
        {"event": "attempt", "tool": "a", "attempt": 1, "outcome": "rejected",
         "codes": ["DT201"], "sha256": "x" * 64, "generator": "anthropic", "model": "m",
         "timestamp": _stamp()},
        {"event": "attempt", "tool": "a", "attempt": 2, "outcome": "accepted", "codes": [],
         "sha256": "y" * 64, "generator": "anthropic", "model": "m", "timestamp": _stamp()},
        _station("a", "generate"), _station("a", "gate", "accepted"),
        _station("b", "execute", version=1),
        "not json at all", '{"half": ',
        _station("a", "load"), _station("a", "verify", "failed"),
        {"event": "registry.reject", "tool": "a", "version": 1, "by": "alice",
         "reason": "no", "current": None, "timestamp": _stamp()},
        _station("b", "execute", version=1),
    ])
    feed = RunFeed(log)
    feed.poll()
    runs = feed.runs(kinds=frozenset({ENSURE, CALL, DECISION}))
    assert [(r.kind, r.tool) for r in runs] == [
        (CALL, "b"), (DECISION, "a"), (ENSURE, "b"), (ENSURE, "a")]
    ensure_a = runs[-1]
    assert [s.station for s in ensure_a.stations] == ["lookup", "generate", "gate", "load",
                                                      "verify"]
    assert ensure_a.state == "failed at verify"
    assert [a.codes for a in ensure_a.attempts] == [("DT201",), ()]
    assert feed.attempts_for("a", "y" * 64) == ensure_a.attempts
    assert feed.attempts_for("a", "z" * 64) is None
    assert [s.station for s in runs[2].stations] == ["lookup", "execute"]
    assert runs[1].summary == "reject v1 by alice (no)"
    assert feed.skipped == 2
    assert feed.runs() == [runs[1], runs[2], runs[3]]  # calls only when asked for



def test_the_feed_never_waits_on_a_fifo_planted_as_the_audit_log(tmp_path: Path) -> None:
    """A registry writer's FIFO at audit.log hung every page poll (a plain open waits for a
    writer); only a regular file is read."""
    import os
    import threading

    log = tmp_path / "audit.log"
    os.mkfifo(log)
    feed = RunFeed(log)
    polled = threading.Thread(target=feed.poll, daemon=True)
    polled.start()
    polled.join(timeout=30)
    assert not polled.is_alive() and feed.runs() == []

def test_the_feed_follows_appends_partial_lines_and_truncation(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    feed = RunFeed(log)
    feed.poll()  # no file yet: nothing, no error
    assert feed.runs() == []
    _write(log, [_station("a", "lookup", "miss")])
    feed.poll()
    seq = feed.seq
    (run,) = feed.runs()
    assert run.state == "running"
    line = json.dumps(_station("a", "generate"))
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(line[:20])  # a writer mid-line
    feed.poll()
    assert feed.changed_since(seq, frozenset({ENSURE})) == []
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(line[20:] + "\n")
    feed.poll()
    assert [s.station for s in feed.changed_since(seq, frozenset({ENSURE}))[0].stations] == [
        "lookup", "generate"]
    _write(log, [_station("c", "lookup", "miss", ago=1000)], mode="w")  # rotated
    feed.poll()
    assert feed.runs()[0].tool == "c"
    assert feed.runs()[0].state == "unfinished"  # its process never finished, long ago


def test_only_the_tail_of_a_big_log_is_read(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    _write(log, [_station(f"t{i}", "lookup", "hit") for i in range(2000)])
    feed = RunFeed(log, tail_bytes=4096, max_runs=10)
    feed.poll()
    runs = feed.runs(limit=100)
    assert 0 < len(runs) <= 10
    assert runs[0].tool == "t1999"


def test_visible_escapes_and_boxes_hidden_characters() -> None:
    assert str(visible("<b>&'\"")) == "&lt;b&gt;&amp;&#39;&#34;"
    shown = str(visible("a\u202eb\u200bc\x1b[31m\ue000"))
    assert "\u202e" not in shown and "\u200b" not in shown and "\x1b" not in shown
    assert shown.count('class="hidden-char') == 4
    assert "U+202E" in shown and "U+200B" in shown and "U+001B" in shown and "U+E000" in shown
    assert str(visible("Crème brûlée\tok\n")) == "Crème brûlée\tok\n"
    assert str(visible(None)) == ""


def test_findings_are_marked_at_their_column() -> None:
    text = 'import os\nx = "\u202e<i>"\n'
    lines = source_lines(text, [{"line": 1, "col": 8, "code": "DT201"},
                                {"line": 2, "col": 6, "code": "DT004"},
                                {"line": 40, "col": 1, "code": "DT999"}])
    assert [line.number for line in lines] == [1, 2]
    assert str(lines[0].html) == 'import <mark class="finding">os</mark>'
    assert '<mark class="finding"><span class="hidden-char hidden-bidi"' in str(lines[1].html)
    assert "&lt;i&gt;" in str(lines[1].html)
    assert [f["code"] for f in lines[1].findings] == ["DT004", "DT999"]  # clamped to the end


def test_templates_autoescape_and_never_mark_tool_text_safe() -> None:
    env = environment()
    assert env.autoescape is True
    templates = Path(environment().loader.searchpath[0])  # type: ignore[union-attr]
    for path in templates.glob("*.html"):
        text = path.read_text()
        assert "|safe" not in text and "| safe" not in text, path.name
        assert "<script>" not in text and " on" + "click" not in text, path.name
        assert "style=" not in text, path.name  # the CSP allows no inline style either


def test_parse_never_raises_on_what_a_file_on_disk_may_hold() -> None:
    for data in (b"\xff\xfe", b"def (", b"CAPABILITIES = {'http': 5}\nNAME = 'x'",
                 b"(" * 10000, b""):
        parse(data)
    assert parse(b'CAPABILITIES = {"http": ["a.example"]}').capabilities is not None


def test_a_diff_pairs_changed_lines() -> None:
    rows = diff_rows("a\nb\nc\n", "a\nB\nc\nd\n")
    assert [(r.kind, r.old, r.new) for r in rows] == [
        ("equal", "a", "a"), ("replace", "b", "B"), ("equal", "c", "c"), ("insert", None, "d")]


def test_session_cookie_and_csrf() -> None:
    session = Session("t" * 20, cookie_name="dyntools_ui_1")
    assert session.token_ok("t" * 20) and not session.token_ok("t" * 19)
    assert not session.token_ok(None) and not session.token_ok("t" * 20 + "\u00e9")
    assert session.from_cookies(f"a=1; dyntools_ui_1={'t' * 20}") == "t" * 20
    assert session.from_cookies("dyntools_ui_1=a; dyntools_ui_1=b") is None  # ambiguous
    assert session.from_cookies("dyntools_ui_10=x") is None
    assert session.csrf_ok(session.csrf) and not session.csrf_ok(session.token)
    with pytest.raises(Exception, match="16 to 4096"):
        check_token("short")
    with pytest.raises(Exception, match="printable ASCII"):
        check_token("a" * 16 + ";b")


def test_hosts_and_origins() -> None:
    sock = bind("127.0.0.1", 0, allow_remote=False)
    try:
        port = sock.getsockname()[1]
        assert allowed_hosts(sock, "127.0.0.1") == {f"127.0.0.1:{port}", f"localhost:{port}"}
    finally:
        sock.close()
    with pytest.raises(Exception, match="not a loopback address"):
        bind("0.0.0.0", 0, allow_remote=False)
    class Wildcard:  # what a socket bound to every address reports (never bound here)
        def getsockname(self) -> tuple[str, int]:
            return ("0.0.0.0", 8766)

    assert allowed_hosts(Wildcard(), "0.0.0.0") is None  # type: ignore[arg-type]
    assert origin_of("http://127.0.0.1:8766/tools/x") == "http://127.0.0.1:8766"
    assert origin_of("not a url") is None


def test_a_rows_pills_name_what_needs_a_person_besides_the_headline() -> None:
    from dyntools.ui.queries import AlsoPill, ToolRow

    def row(current: int | None, versions: list[tuple[int, str]]) -> ToolRow:
        return ToolRow(name="t", current=current, versions=tuple(versions), counts={},
                       description="", capabilities="", widenings=(), last_change="",
                       problem=None, unrecorded=0)

    busy = row(2, [(1, "quarantined"), (2, "approved"), (3, "rejected"), (5, "pending"),
                   (7, "pending"), (8, "unrecorded")])
    assert busy.status == "approved"
    assert busy.also == (AlsoPill("quarantined", (1,)), AlsoPill("pending", (5, 7)),
                         AlsoPill("unrecorded", (8,)))
    assert [p.text for p in busy.also] == ["v1 quarantined", "2 pending", "v8 unrecorded"]
    # No current version: the newest recorded one is the headline and is not repeated.
    waiting = row(None, [(1, "pending")])
    assert waiting.status == "pending" and waiting.also == ()
    assert row(None, [(1, "rejected"), (2, "pending")]).also == ()
    assert row(None, [(1, "pending"), (2, "rejected")]).also == (AlsoPill("pending", (1,)),)
    assert row(None, [(1, "unrecorded")]).also == (AlsoPill("unrecorded", (1,)),)
    assert row(1, [(1, "approved"), (2, "retired")]).also == ()


def test_approve_is_off_only_while_the_gate_refuses_or_the_file_is_unreadable() -> None:
    from dyntools.ui.queries import actions_for, approve_blocked

    finding = {"code": "DT201", "line": 2, "col": 8, "message": "module os is not allowed"}
    assert approve_blocked(("approve", "reject", "retire"), "x = 1", ()) is None
    assert approve_blocked(("activate", "retire"), "x = 1", (finding,)) is None
    refused = approve_blocked(("approve", "reject", "retire"), "import os", (finding,))
    assert refused is not None and "1 finding(s)" in refused
    assert "can be rejected or retired" in refused
    unreadable = approve_blocked(("approve", "retire"), None, ())
    assert unreadable is not None and "cannot be read" in unreadable
    # A dropped-in file the gate refuses can be retired, not rejected.
    assert actions_for("unrecorded", 3, 1, False, refused=True) == ("approve", "retire")
    assert actions_for("unrecorded", 3, 1, False) == ("approve", "reject", "retire")
