"""The pages a reviewer reads, driven in headless Chromium against `dyntools ui` itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .browser import UiServer
from .scenes import cli


def _rows(page: Any) -> dict[str, dict[str, str]]:
    rows = {}
    for row in page.query_selector_all("table.tools tr.tool"):
        rows[row.get_attribute("data-tool")] = {
            cell: row.query_selector(f"td.{cell}").inner_text().strip()
            for cell in ("current", "status", "versions", "caps", "name")}
    return rows


def test_the_registry_lists_every_tool_with_its_version_status_and_capabilities(
        visit: Any, scene_server: UiServer) -> None:
    tab = visit(scene_server)
    rows = _rows(tab.page)
    assert set(rows) == {"fetch_title", "html_probe", "roman_numeral", "slugify_text",
                         "word_count"}
    assert rows["slugify_text"]["current"] == "v2"
    assert rows["slugify_text"]["versions"].split() == ["v1", "v2"]
    assert rows["word_count"]["current"] == "none"
    assert rows["word_count"]["status"].startswith("quarantined")
    assert rows["html_probe"]["versions"].split() == ["v1", "v2", "v3"]
    caps = rows["fetch_title"]["caps"]
    assert caps.startswith("http: api.example.com")
    assert "v2 (pending) widens: http: tracker.example.net; secrets: DEMO_TOKEN" in caps
    summary = tab.page.inner_text("p.summary")
    assert "2 pending" in summary and "2 quarantined" in summary and "1 rejected" in summary
    assert tab.errors == []


def _pills(page: Any, tool: str) -> list[str]:
    return [pill.inner_text() for pill in
            page.query_selector_all(f"tr[data-tool={tool}] td.status .badge")]


def test_status_pills_say_what_waits_besides_the_current_status(
        visit: Any, scene_server: UiServer, scene: Path) -> None:
    """A tool with an approved current v2, a quarantined v1, a pending v3 and a dropped-in
    v4 does not read just "approved"; each pill names its version and links to it."""
    tab = visit(scene_server)
    assert _pills(tab.page, "roman_numeral") == [
        "approved", "v1 quarantined", "v3 pending", "v4 unrecorded"]
    assert _pills(tab.page, "fetch_title") == ["approved", "v2 pending"]
    assert _pills(tab.page, "html_probe") == ["approved", "v3 unrecorded"]
    assert _pills(tab.page, "slugify_text") == ["approved"]
    # The headline is the version it speaks for: no second pill repeats it.
    assert _pills(tab.page, "word_count") == ["quarantined"]
    # The pills agree with what the CLI says of each version.
    for version, status in ((1, "quarantined"), (3, "pending")):
        shown = json.loads(cli("show", "roman_numeral", "--version", str(version), "--json",
                               registry=scene, check=False).stdout)
        assert shown["status"] == status
    tab.page.click("tr[data-tool=roman_numeral] a.badge:has-text('v3 pending')")
    tab.page.wait_for_url("**/tools/roman_numeral/v/3")
    assert tab.page.inner_text("#status") == "pending"
    assert tab.errors == []


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.query_selector(selector).bounding_box()
    assert box is not None, selector
    return dict(box)


def test_the_evidence_comes_before_the_decision(visit: Any, scene_server: UiServer) -> None:
    """A dropped-in file the gate refuses: its 7 findings and its source are on the first
    screen, beside the decisions; approve is off and says why; retire is what is left."""
    tab = visit(scene_server)
    tab.go("/tools/roman_numeral/v/4")
    assert tab.page.inner_text("#status") == "unrecorded"
    assert tab.page.inner_text("#gate-verdict") == "gate refuses: 7 finding(s)"
    reason = tab.page.inner_text("#reason")
    assert "cannot be approved" in reason and "run approve" not in reason
    # In the document, the source and its findings come before the decisions ...
    assert tab.page.evaluate("""() => {
        const source = document.getElementById('source');
        const decide = document.getElementById('decisions');
        return Boolean(source.compareDocumentPosition(decide)
                       & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    # ... and on the screen they sit beside them, every finding within the first screen.
    source, decide = _box(tab.page, "#source"), _box(tab.page, "#decisions")
    assert source["x"] + source["width"] <= decide["x"]
    assert abs(source["y"] - decide["y"]) < 80
    findings = tab.page.query_selector_all("#source ol.findings li")
    assert len(findings) == 7
    last = findings[-1].bounding_box()
    assert last is not None and last["y"] + last["height"] < 900
    # Approve is off, with the reason the button is described by, and no fields to fill.
    button = tab.page.query_selector("#approve-form button[type=submit]")
    assert button.is_disabled()
    assert button.get_attribute("aria-describedby") == "approve-blocked"
    blocked = tab.page.inner_text("#approve-blocked")
    assert "the gate refuses this file: 7 finding(s)" in blocked
    assert "can be retired" in blocked
    assert tab.page.query_selector("#approve-form input[name=reason]") is None
    # A refused file cannot be rejected (the registry records only files that pass the
    # gate): what is left is retire, open because nothing else can be done here.
    assert tab.page.query_selector("#reject-form") is None
    assert tab.page.query_selector("#retire-form button").is_visible()
    assert tab.errors == []


def _first_control(page: Any) -> Any:
    return page.evaluate("""() => {
        const all = document.querySelectorAll(
            '#decisions button, #decisions select, #decisions summary, '
            + '#decisions input:not([type=hidden]), #decisions textarea');
        const shown = [...all].find(e => e.getClientRects().length > 0);
        return shown ? {tag: shown.tagName.toLowerCase(), cls: shown.className,
                        text: shown.textContent.trim()} : null;
    }""")


def test_the_current_versions_first_control_is_not_destructive(
        visit: Any, scene_server: UiServer) -> None:
    tab = visit(scene_server)
    for path in ("/tools/slugify_text/v/2", "/tools/roman_numeral/v/2",
                 "/tools/fetch_title/v/1", "/tools/fetch_title/v/2"):
        tab.go(path)
        first = _first_control(tab.page)
        assert first is not None and "danger" not in first["cls"], (path, first)
        # Retire (and reject) wait behind a closed disclosure that says what they are.
        assert not tab.page.query_selector("#retire-form button").is_visible(), path
        assert "cannot be undone" in tab.page.inner_text("#destructive summary")
    tab.go("/tools/slugify_text/v/2")
    assert tab.page.inner_text("#state-line") == "v2 is current: new calls run it."
    assert _first_control(tab.page)["tag"] == "select"  # compare with another version
    tab.page.click("#destructive summary")
    assert tab.page.query_selector("#retire-form button").is_visible()
    # A pending version's first control is its approve form, enabled: the gate accepts it.
    tab.go("/tools/fetch_title/v/2")
    assert tab.page.query_selector("#approve-blocked") is None
    assert tab.page.query_selector("#approve-form button").is_enabled()
    assert tab.errors == []


def test_search_is_dyntools_search_and_status_filters(visit: Any, scene_server: UiServer,
                                                      scene: Path) -> None:
    tab = visit(scene_server)
    tab.page.fill("input[name=q]", "url slug title")
    tab.page.click("form.filter button")
    tab.page.wait_for_url("**/?q=*")
    found = [row.get_attribute("data-tool") for row in
             tab.page.query_selector_all("table.tools tr.tool")]
    cli_hits = json.loads(cli("search", "url slug title", "--json", registry=scene).stdout)
    assert found == [hit["name"] for hit in cli_hits["hits"]]
    assert found[0] == "slugify_text"
    tab.go("/?status=pending")
    assert list(_rows(tab.page)) == ["fetch_title", "roman_numeral"]
    tab.go("/?status=unrecorded")
    assert list(_rows(tab.page)) == ["html_probe", "roman_numeral"]
    tab.go("/?q=zzzqqq")
    assert tab.page.inner_text("#no-tools") == "no tool matches"


def test_a_version_shows_the_gates_findings_at_their_line_and_column(
        visit: Any, scene_server: UiServer) -> None:
    tab = visit(scene_server)
    tab.go("/tools/word_count/v/1")
    assert tab.page.inner_text("#status") == "quarantined"
    assert "hash_mismatch" in tab.page.inner_text("#reason")
    assert "DIFFERS" in tab.page.inner_text("section.facts")
    # Each finding sits under its line, with the offending name marked at its column.
    line2 = tab.page.query_selector("#L2")
    assert line2.get_attribute("class") == "has-finding"
    assert [m.inner_text() for m in line2.query_selector_all("mark.finding")] == ["os"]
    line11 = tab.page.query_selector("#L11")
    assert [m.inner_text() for m in line11.query_selector_all("mark.finding")] == [
        "__class__", "__base__"]
    notes = [row.inner_text().strip() for row in tab.page.query_selector_all("tr.finding-row")]
    assert any(n.startswith("DT201") and "2:8" in n and "module os is not allowed" in n
               for n in notes)
    assert any(n.startswith("DT402") and "10:8" in n for n in notes)
    assert sum("DT302" in n for n in notes) == 2
    assert tab.page.query_selector("#L4").get_attribute("class") is None
    assert tab.page.inner_text("#gate-now") == "4 finding(s) today"
    # A quarantined version can only be retired from here.
    assert [f.get_attribute("id") for f in tab.page.query_selector_all("form.decision")] == [
        "retire-form"]


def test_a_version_shows_hash_provenance_examples_and_widening(
        visit: Any, scene_server: UiServer, scene: Path) -> None:
    tab = visit(scene_server)
    tab.go("/tools/fetch_title/v/2")
    record = json.loads(cli("show", "fetch_title", "--version", "2", "--json",
                            registry=scene).stdout)
    assert tab.page.inner_text("#sha256") == record["sha256"]
    assert tab.page.inner_text("#status") == "pending"
    widens = tab.page.inner_text("#widens")
    assert "against the current v1" in widens
    assert "http: tracker.example.net" in widens and "secrets: DEMO_TOKEN" in widens
    provenance = tab.page.inner_text("#provenance")
    assert "generator\tfile" in provenance and "attempts\t1" in provenance
    attempts = tab.page.query_selector_all("#provenance table.attempts tbody tr")
    assert len(attempts) == 1 and "accepted" in attempts[0].inner_text()
    examples = tab.page.inner_text("#examples")
    assert '{"text": "a"}' in examples and "passed" in examples
    assert {f.get_attribute("id") for f in tab.page.query_selector_all("form.decision")} == {
        "approve-form", "reject-form", "retire-form"}
    # The rejected version shows why, with the failing example from its verification.
    tab.go("/tools/html_probe/v/2")
    assert tab.page.inner_text("#status") == "rejected"
    reason = tab.page.inner_text("#reason")
    assert 'expected {"text": "a"}, got {"text": "A"}' in reason


def test_a_side_by_side_diff_against_any_other_version(visit: Any,
                                                       scene_server: UiServer) -> None:
    tab = visit(scene_server)
    tab.go("/tools/fetch_title/v/2")
    tab.page.select_option("#diff-form select[name=b]", "1")
    tab.page.click("#diff-form button")
    tab.page.wait_for_url("**/tools/fetch_title/diff?a=2&b=1")
    tab.go("/tools/fetch_title/diff?a=1&b=2")
    rows = tab.page.query_selector_all("#diff tbody tr")
    assert len(rows) == 10
    changed = [r for r in rows if r.get_attribute("class") == "d-replace"]
    assert len(changed) == 3
    capabilities = changed[-1].query_selector_all("td.code")
    assert "tracker.example.net" not in capabilities[0].inner_text()
    assert "tracker.example.net" in capabilities[1].inner_text()
    assert capabilities[0].get_attribute("class") == "code del"
    assert capabilities[1].get_attribute("class") == "code ins"
    assert tab.page.inner_text("#diff-summary") == "+3 −3 lines"
    # A version against a dropped-in file works too; an unknown one is a clean 404.
    tab.go("/tools/html_probe/diff?a=1&b=3")
    assert tab.page.query_selector_all("#diff tr.d-replace")
    assert tab.go("/tools/html_probe/diff?a=1&b=9").status == 404


def test_the_bench_checks_as_you_type_and_keeps_nothing(visit: Any, scene_server: UiServer,
                                                        scene: Path) -> None:
    before = sorted(str(p.relative_to(scene)) for p in scene.rglob("*") if p.name != "audit.log")
    tab = visit(scene_server)
    tab.go("/bench")
    tab.page.type("#bench-input", "import os\n", delay=5)
    tab.page.wait_for_selector("#bench-verdict.bad")
    assert tab.page.inner_text("#bench-verdict").startswith("rejected: ")
    marks = [m.inner_text() for m in tab.page.query_selector_all("#bench-output #L1 mark")]
    assert "os" in marks
    assert "DT201" in tab.page.inner_text("#bench-output")
    good = (Path(__file__).parents[2] / "examples" / "slugify_text.py").read_text()
    tab.page.fill("#bench-input", good)
    tab.page.wait_for_selector("#bench-verdict.ok")
    assert tab.page.inner_text("#bench-verdict") == "accepted: no findings"
    after = sorted(str(p.relative_to(scene)) for p in scene.rglob("*") if p.name != "audit.log")
    assert after == before
    assert tab.errors == []


def test_the_runs_timeline_follows_an_ensure_live(visit: Any, tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    cli("init", str(registry), registry=registry)
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/runs")
        tab.page.wait_for_selector("#live.ok")
        assert tab.page.query_selector("#no-runs") is not None
        cli("ensure", "slugify_text", "--params", '{"text": "A b"}', registry=registry)
        tab.page.wait_for_selector("section.run[data-tool=slugify_text]", timeout=15000)
        tab.page.wait_for_function(
            "() => document.querySelectorAll("
            "'section.run[data-tool=slugify_text] table.stations tr').length >= 8")
        run = tab.page.query_selector("section.run[data-tool=slugify_text]")
        stations = [r.query_selector("td.station").inner_text()
                    for r in run.query_selector_all("table.stations tr")]
        assert stations == ["lookup", "generate", "gate", "load", "verify", "persist",
                            "activate", "execute"]
        assert run.query_selector(".run-state").inner_text() == "done"
        assert tab.page.query_selector("#no-runs") is None
        # A failing run shows where it failed, as the CLI does.
        cli("ensure", "no_such_template_tool", registry=registry, expect=15)
        failed = tab.page.wait_for_selector("section.run[data-tool=no_such_template_tool]",
                                            timeout=15000)
        assert failed.query_selector(".run-state").inner_text() == "failed at generate"
        assert "FAIL" in failed.inner_text()
        assert tab.errors == []


LINE_ENDINGS = r'''"""Normalises line endings."""
NAME = "line_endings"
DESCRIPTION = "Turns CRLF and CR line endings into LF."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "a\r\nb\rc"}, "result": {"text": "a\nb\nc"}}]


def run(params):
    return {"text": params["text"].replace("\r\n", "\n").replace("\r", "\n")}
'''


def test_a_carriage_return_in_examples_is_shown_as_an_escape(visit: Any, tmp_path: Path) -> None:
    """Issue 27: CR is text in EXAMPLES; the page shows it as `\\r`, never raw."""
    registry = tmp_path / "registry"
    source = tmp_path / "line_endings.py"
    source.write_text(LINE_ENDINGS, encoding="ascii")
    cli("ensure", "line_endings", "--generator", "file", "--from", str(source),
        registry=registry)
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/tools/line_endings/v/1")
        examples = tab.page.inner_text("#examples")
        assert '{"text": "a\\r\\nb\\rc"}' in examples and "passed" in examples
        assert "\r" not in tab.page.content()
        assert tab.errors == []
