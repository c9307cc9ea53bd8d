"""Decisions taken on the page are the CLI's own: what the page does, `dyntools list` and
`dyntools show` (run as processes) see."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .browser import UiServer
from .scenes import DROPPED_REFUSED, cli, pending_scene, tool_file


def _show(registry: Path, name: str, version: int) -> dict[str, Any]:
    return json.loads(cli("show", name, "--version", str(version), "--json",
                          registry=registry).stdout)


def _current(registry: Path, name: str) -> int | None:
    tools = json.loads(cli("list", "--json", registry=registry).stdout)["tools"]
    return next(t["current"] for t in tools if t["name"] == name)


def test_approving_a_pending_version_makes_it_current_for_the_cli(
        visit: Any, tmp_path: Path) -> None:
    registry = pending_scene(tmp_path / "registry")
    assert _current(registry, "slugify_text") is None
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/tools/slugify_text/v/1")
        assert tab.page.inner_text("#status") == "pending"
        tab.page.fill("#approve-form input[name=reason]", "read it: slugs only, no I/O")
        tab.page.fill("#approve-form input[name=by]", "alice")
        tab.page.click("#approve-form button[type=submit]")
        tab.page.wait_for_url("**/tools/slugify_text/v/1?done=approve")
        assert tab.page.inner_text("#flash").startswith("approved: slugify_text v1 is approved")
        assert tab.page.inner_text("#status") == "approved"
        assert tab.page.query_selector("#is-current") is not None
        assert "alice" in tab.page.inner_text("#signature")
    assert _current(registry, "slugify_text") == 1
    record = _show(registry, "slugify_text", 1)
    assert record["status"] == "approved"
    assert record["decisions"][-1]["action"] == "approve"
    assert record["decisions"][-1]["by"] == "alice"
    assert record["decisions"][-1]["reason"] == "read it: slugs only, no I/O"
    out = cli("call", "slugify_text", "--params", '{"text": "Hi There"}', registry=registry)
    assert json.loads(out.stdout) == {"slug": "hi-there"}


def test_an_approval_that_fails_verification_shows_the_failing_example(
        visit: Any, tmp_path: Path) -> None:
    registry = pending_scene(tmp_path / "registry")
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/tools/echo_text/v/1")
        assert tab.page.inner_text("#status") == "unrecorded"
        tab.page.fill("#approve-form input[name=reason]", "looks fine")
        with tab.page.expect_response(lambda r: r.request.method == "POST") as answer:
            tab.page.click("#approve-form button[type=submit]")
        assert answer.value.status == 422
        assert "verify/verification_failed" in tab.page.inner_text("p.code")
        assert "recorded as rejected" in tab.page.inner_text("#decision-message")
        row = tab.page.query_selector("table.verification tbody tr.ex-failed")
        cells = [c.inner_text() for c in row.query_selector_all("td")]
        assert cells[2] == "failed"
        assert cells[3:] == ['{"text": "a"}', '{"text": "b"}', '{"text": "a"}']
    record = _show(registry, "echo_text", 1)
    assert record["status"] == "rejected"
    assert "verification_failed" in record["reason"]
    assert _current(registry, "echo_text") is None
    # The extra examples field holds a version to more than its own EXAMPLES, as --example.
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/tools/slugify_text/v/1")
        tab.page.fill("#approve-form textarea[name=examples]",
                      '{"params": {"text": "A B"}, "result": {"slug": "not-this"}}')
        tab.page.click("#approve-form button[type=submit]")
        tab.page.wait_for_selector("table.verification tr.ex-failed")
        assert "caller" in tab.page.inner_text("table.verification tr.ex-failed")
        assert "stays pending" in tab.page.inner_text("#decision-message")
    # the reviewer's example failed, not the version's own: nothing was decided
    assert _show(registry, "slugify_text", 1)["status"] == "pending"


def test_rollback_activate_and_retire_through_the_page(visit: Any, tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    cli("init", str(registry), registry=registry)
    cli("ensure", "slugify_text", registry=registry)
    cli("ensure", "slugify_text", "--new-version", registry=registry)
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/tools/slugify_text/v/1")
        tab.page.click("#rollback-form button[type=submit]")
        tab.page.wait_for_url("**?done=rollback")
        assert _current(registry, "slugify_text") == 1
        tab.go("/tools/slugify_text/v/2")
        tab.page.fill("#activate-form input[name=reason]", "v1 was fine after all; forward")
        tab.page.click("#activate-form button[type=submit]")
        tab.page.wait_for_url("**?done=activate")
        assert _current(registry, "slugify_text") == 2
        tab.go("/tools/slugify_text/v/2")
        tab.page.click("#destructive summary")  # the current version's retire is folded
        tab.page.fill("#retire-form input[name=reason]", "superseded, incident 12")
        tab.page.click("#retire-form button[type=submit]")  # the confirm() is accepted
        tab.page.wait_for_url("**?done=retire")
        assert tab.page.inner_text("#status") == "retired"
    assert _current(registry, "slugify_text") == 1
    record = _show(registry, "slugify_text", 2)
    assert record["status"] == "retired"
    assert record["decisions"][-1]["reason"] == "superseded, incident 12"
    history = json.loads(cli("review", "--json", registry=registry).stdout)
    moves = [h["action"] for h in history["tools"][0]["history"]]
    assert moves[-3:] == ["rollback", "activate", "retire"]


def test_a_refused_decision_is_the_clis_error_as_a_page(visit: Any, tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    cli("init", str(registry), registry=registry)
    cli("ensure", "slugify_text", registry=registry)
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/tools/slugify_text/v/1")
        tab.page.click("#destructive summary")
        # The browser requires a reason; the server checks again (the registry's own rule).
        tab.page.eval_on_selector("#retire-form input[name=reason]",
                                  "e => e.removeAttribute('required')")
        with tab.page.expect_response(lambda r: r.request.method == "POST") as answer:
            tab.page.click("#retire-form button[type=submit]")
        assert answer.value.status == 400
        assert "retire needs a reason" in tab.page.inner_text("#decision-message")
    assert _show(registry, "slugify_text", 1)["status"] == "approved"


def test_an_approval_holds_the_page_to_the_bytes_it_showed(visit: Any, tmp_path: Path) -> None:
    # A dropped-in file is read again when the reviewer clicks approve: if its bytes
    # changed after the page showed them (here: now reaching a host), the reviewer would
    # approve code nobody read. The page's approval names the SHA-256 it showed.
    registry = tmp_path / "registry"
    cli("init", str(registry), registry=registry)
    folder = registry / "shout_text"
    folder.mkdir()
    shown = tool_file("shout_text", "Uppercases its text.", body='return {"text": params["text"]}')
    (folder / "v1.py").write_text(shown, encoding="utf-8")
    swapped = tool_file("shout_text", "Uppercases its text.",
                        body='return {"text": params["text"]}',
                        capabilities='{"http": ["exfil.example.com"]}')
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/tools/shout_text/v/1")
        assert "exfil" not in tab.page.inner_text("#capabilities")
        (folder / "v1.py").write_text(swapped, encoding="utf-8")  # after the page was read
        tab.page.fill("#approve-form input[name=reason]", "read it: no I/O")
        with tab.page.expect_response(lambda r: r.request.method == "POST") as answer:
            tab.page.click("#approve-form button[type=submit]")
        assert answer.value.status == 400
        assert "changed since the page showed it" in tab.page.inner_text("#decision-message")
    tools = json.loads(cli("list", "--json", registry=registry).stdout)["tools"]
    assert all(t["current"] is None for t in tools if t["name"] == "shout_text")
    assert "approved" not in cli("show", "shout_text", "--version", "1", "--json",
                                 registry=registry, check=False).stdout


def test_approve_is_off_for_a_file_the_gate_refuses_and_the_server_refuses_it_too(
        visit: Any, tmp_path: Path) -> None:
    """The page's approve is off while the gate refuses the file, and saying so is not the
    only guard: a form posted anyway (here, the disabled fieldset switched back on) gets
    the gate's refusal with its findings, and nothing is recorded. Retire is what is left."""
    registry = tmp_path / "registry"
    cli("init", str(registry), registry=registry)
    folder = registry / "roman_numeral"
    folder.mkdir()
    (folder / "v1.py").write_text(DROPPED_REFUSED, encoding="utf-8")
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/tools/roman_numeral/v/1")
        reason = tab.page.inner_text("#reason")
        assert "no manifest" in reason and "cannot be approved" in reason
        assert "run approve" not in reason
        assert tab.page.query_selector("#approve-form button").is_disabled()
        tab.page.eval_on_selector("#approve-form fieldset", "e => e.removeAttribute('disabled')")
        with tab.page.expect_response(lambda r: r.request.method == "POST") as answer:
            tab.page.click("#approve-form button[type=submit]")
        assert answer.value.status == 422
        assert "gate/unsafe_source" in tab.page.inner_text("p.code")
        assert len(tab.page.query_selector_all("ol.findings li")) == 7
        tools = json.loads(cli("list", "--json", registry=registry).stdout)["tools"]
        assert all(t["current"] is None for t in tools if t["name"] == "roman_numeral")
        tab.go("/tools/roman_numeral/v/1")
        tab.page.fill("#retire-form input[name=reason]", "dropped in by hand; not ours")
        tab.page.click("#retire-form button[type=submit]")
        tab.page.wait_for_url("**?done=retire")
        assert tab.page.inner_text("#status") == "retired"
        assert tab.page.query_selector("#decisions form.decision") is None
    assert _show(registry, "roman_numeral", 1)["status"] == "retired"
