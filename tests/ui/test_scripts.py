"""The Scripts views: a run's source with the gate's findings inline, its tool-call trace,
a waiting run's decision buttons (the page's own approve, which verifies as `dyntools
approve`), and the version a run was promoted to; tool-controlled text escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx

from dyntools.codemode.engine import run_store
from dyntools.generators.offline import template_source
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry
from tests.codemode.conftest import TWO_CALLS, registry_with, rewrite_record
from tests.support.cli import run_cli

from .browser import UiServer

HOSTILE = "print('<script>alert(1)</script>', chr(0x202e) + 'evil')\nresult = {'ok': 1}\n"


def test_a_waiting_run_is_approved_on_the_page_then_resumed_and_promoted(
        visit: Any, tmp_path: Path) -> None:
    registry = registry_with(tmp_path / "registry", pending=("slugify_text",))
    with Dyntools(registry) as dt:
        waiting = dt.run_code(TWO_CALLS, {"title": "Hello World"})
        refused = dt.run_code("import os\nvalue = tools.word_count\nresult = {}\n")
        hostile = dt.run_code(HOSTILE)
    assert (waiting.status, refused.status, hostile.status) == ("waiting", "refused", "ok")
    with UiServer(registry) as server:
        tab = visit(server)
        tab.go("/scripts")
        rows = tab.page.inner_text("#scripts")
        assert waiting.run_id in rows and "slugify_text v1" in rows
        tab.go(f"/scripts/{refused.run_id}")
        assert tab.page.inner_text("#status") == "refused"
        assert tab.page.inner_text("#gate-verdict") == "gate refuses: 2 finding(s)"
        under = [row.inner_text() for row in tab.page.query_selector_all("tr.finding-row")]
        assert [text.split()[:2] for text in under] == [["DT201", "1:8"], ["DT406", "2:9"]]
        tab.go(f"/scripts/{hostile.run_id}")
        assert tab.page.query_selector("#output script") is None
        assert "<script>alert(1)</script>" in tab.page.inner_text("#output")
        assert tab.page.query_selector("#output .hidden-char") is not None
        tab.go(f"/scripts/{waiting.run_id}")
        assert tab.page.inner_text("#status") == "waiting"
        assert "slugify_text v1" in tab.page.inner_text("#waits")
        trace = [row.inner_text() for row in tab.page.query_selector_all("#trace tbody tr")]
        assert "word_count" in trace[0] and "waiting" in trace[1]
        assert tab.errors == []
        tab.page.fill("#approve-form input[name=reason]", "read it")
        tab.page.click("#approve-form button[type=submit]")
        tab.page.wait_for_url(f"**/scripts/{waiting.run_id}?done=approve")
        assert f"dyntools resume {waiting.run_id}" in tab.page.inner_text("#flash")
        code, out, err = run_cli(["resume", waiting.run_id, "--json", "--registry",
                                  str(registry)], tmp_path)
        assert code == 0 and json.loads(out)["status"] == "ok", err
        code, _, err = run_cli(["promote", waiting.run_id, "title_facts", "--registry",
                                str(registry)], tmp_path)
        assert code == 0, err
        tab.go(f"/scripts/{waiting.run_id}")
        assert tab.page.inner_text("#status") == "ok"
        link = tab.page.query_selector("#promoted a")
        assert link is not None and link.get_attribute("href") == "/tools/title_facts/v/1"
        tab.go("/scripts/0123456789abcdef")
        assert "unknown_run" in tab.page.content()


RETURNS = ("//evil.example/x", "https://evil.example/", "/scripts/../tools",
           "/scripts/0123456789abcdef")


def test_return_to_only_ever_leads_back_to_a_run(tmp_path: Path) -> None:
    """The decision endpoints honour `return_to` only as a /scripts/RUN_ID path; anything
    else comes back to the version's own page (no open redirect off the page)."""
    registry_path = registry_with(tmp_path / "registry", pending=("slugify_text",))
    registry = Registry.open(registry_path)
    for extra in range(2, len(RETURNS) + 1):  # one pending version per case
        registry.add_version("slugify_text", template_source("slugify_text") + f"# {extra}\n",
                             {"generator": "test"}, activate=False, status="pending",
                             reason="awaiting approval")
    with UiServer(registry_path) as server, httpx.Client(
            base_url=server.url, cookies={server.cookie_name: server.token},
            follow_redirects=False, timeout=60) as http:
        page = http.get("/tools/slugify_text/v/1").text
        match = re.search(r'<meta name="csrf-token" content="([0-9a-f]{64})">', page)
        assert match is not None
        for version, return_to in enumerate(RETURNS, start=1):
            answer = http.post(f"/tools/slugify_text/v/{version}/reject",
                               data={"csrf": match.group(1), "by": "alice", "reason": "no",
                                     "return_to": return_to},
                               headers={"origin": server.url})
            assert answer.status_code == 303, answer.text
            expected = (f"{return_to}?done=reject" if return_to.startswith("/scripts/0")
                        else f"/tools/slugify_text/v/{version}?done=reject")
            assert answer.headers["location"] in (expected, server.url + expected), return_to


def test_an_edited_run_is_not_shown_as_kept(tmp_path: Path) -> None:
    """A record edited through the registry's folder: left out of Scripts, and its page is
    a 409 that names the reason, never the edited content."""
    registry = registry_with(tmp_path / "registry")
    with Dyntools(registry) as dt:
        kept = dt.run_code("result = {'n': 1}\n")
        edited = dt.run_code("result = {'n': 2}\n")
        rewrite_record(run_store(dt), edited.run_id,
                       lambda d: d.update(output="FORGED-OUTPUT"), reseal=False)
    with UiServer(registry) as server, httpx.Client(
            base_url=server.url, cookies={server.cookie_name: server.token},
            follow_redirects=False, timeout=60) as http:
        listing = http.get("/scripts")
        page = http.get(f"/scripts/{edited.run_id}")
    assert listing.status_code == 200
    assert kept.run_id in listing.text and edited.run_id not in listing.text
    assert page.status_code == 409
    assert "run_tampered" in page.text and "FORGED-OUTPUT" not in page.text
