"""The page's /health (issue 32): made on request (a POST with the page's CSRF token), laid out
evidence first, tool-controlled text shown as text; it changes nothing served."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from dyntools.registry import Registry

from .browser import UiServer

HOSTILE = "<img src=x onerror=alert(1)>\u202e"
SHOUT = '''"""Shouts."""

NAME = "shout"
DESCRIPTION = "Shouts a text."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "a"}, "result": {"u": "A"}}]


def run(params):
    return {"u": params["text"].upper()}
'''


def registry(root: Path) -> Path:
    reg = Registry.open(root)
    # what it passed when verified, and fails now: a regression whose text is hostile
    promised = {"params": {"text": HOSTILE}, "result": {"u": "no"}}
    reg.add_version("shout", SHOUT, {"generator": "test", "verification": {
        "examples": [promised]}})
    return root


def test_a_check_made_on_the_page_shows_the_regression_first_and_escaped(
        visit: Any, tmp_path: Path) -> None:
    root = registry(tmp_path / "registry")
    before = (root / "shout" / "manifest.json").read_bytes()
    with UiServer(root) as server:
        tab = visit(server)
        tab.go("/health")
        assert tab.page.inner_text("#verdict") == "not checked yet"
        tab.page.click("#health-form button[type=submit]")
        tab.page.wait_for_url("**/health")
        assert tab.page.inner_text("#verdict") == "failing"
        assert "1 regression(s), 0 unverified" in tab.page.inner_text("#health-failing")
        rows = tab.page.inner_text("#regressions")
        assert "shout v1" in rows and "<img src=x onerror=alert(1)>" in rows
        assert tab.page.query_selector("#regressions img") is None  # text, never markup
        assert "\u202e" not in rows
        # the evidence comes before the form that acts, in the document
        html = tab.page.content()
        assert html.index('id="regressions"') < html.index('id="health-form"')
        assert tab.errors == []
        # a write without the page's CSRF token is refused, and makes nothing
        refused = httpx.post(server.url + "/health", cookies={server.cookie_name: server.token},
                             headers={"origin": server.url}, data={"csrf": "nope"})
        assert refused.status_code == 403
    assert (root / "shout" / "manifest.json").read_bytes() == before
    assert json.loads(before)["current"] == 1
