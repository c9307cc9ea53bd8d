"""The page's decisions with trusted keys, over HTTP against `dyntools ui` itself: without a
trusted key the page decides nothing (403, and the registry is untouched); with one
(`--sign-key`), each decision joins the tool's decision chain, as the CLI's do, and the page
shows a chain that does not vouch for what the manifest says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from tests.registry.chain_scenes import Operator, edit_manifest, manifest
from tests.support.waiting import wait_for

from .browser import UiServer


def _session(server: UiServer) -> tuple[httpx.Client, str]:
    http = httpx.Client(base_url=server.url, cookies={server.cookie_name: server.token},
                        follow_redirects=False, timeout=60)
    page = http.get("/tools/slugify_text/v/1").text
    match = re.search(r'<meta name="csrf-token" content="([0-9a-f]{64})">', page)
    assert match is not None
    return http, match.group(1)


def _decide(server: UiServer, action: str, version: int, **fields: str) -> httpx.Response:
    http, csrf = _session(server)
    try:
        return http.post(f"/tools/slugify_text/v/{version}/{action}",
                         data={"csrf": csrf, "by": "alice", **fields},
                         headers={"origin": server.url})
    finally:
        http.close()


def _page_once_the_watcher_saw_it(server: UiServer, path: str, marker: str) -> str:
    """The page re-reads a manifest edited behind its back when its watcher sees the change,
    which is asynchronous: on a busy machine the first GET may come before it."""
    http, _ = _session(server)
    shown: list[str] = []

    def seen() -> bool:
        shown.append(http.get(path).text)
        return marker in shown[-1]

    try:
        wait_for(seen, timeout=30)
        return shown[-1]
    finally:
        http.close()


def test_the_page_signs_its_decisions_into_the_chain(tmp_path: Path) -> None:
    op = Operator(tmp_path)
    op.ok("init", str(op.reg))
    op.ok("ensure", "slugify_text", key=True)
    op.ok("ensure", "slugify_text", "--new-version", key=True)
    env = {"DYNTOOLS_TRUSTED_KEYS": str(op.trusted), "DYNTOOLS_TRUST_STATE": str(op.state)}
    before = (op.reg / "slugify_text" / "manifest.json").read_bytes()
    with UiServer(op.reg, env=env) as server:
        page = httpx.get(f"{server.url}/tools/slugify_text/v/1",
                         cookies={server.cookie_name: server.token}).text
        assert "a decision needs one of them" in page
        refused = _decide(server, "rollback", 1, reason="v2 slow")
        assert refused.status_code == 403
        assert "signing_key_required" in refused.text
    assert (op.reg / "slugify_text" / "manifest.json").read_bytes() == before

    with UiServer(op.reg, "--sign-key", str(op.key), env=env) as server:
        assert _decide(server, "rollback", 1, reason="v2 slow").status_code == 303
        assert _decide(server, "retire", 2, reason="slow on long input").status_code == 303
        chain = manifest(op.reg, "slugify_text")["chain"]
        assert [(r["action"], r["versions"], r["current"], r["by"]) for r in chain[2:]] == [
            ("rollback", [1], 1, "alice"), ("retire", [2], 1, "alice")]
        assert json.loads(op.call().stdout)["version"] == 1
        # an edit no key signed: the page says what disagrees and what settles it
        edit_manifest(op.reg, "slugify_text",
                      lambda m: m["versions"][1].update(status="approved", reason=None))
        edit_manifest(op.reg, "slugify_text", lambda m: m.update(current=2))
        shown = _page_once_the_watcher_saw_it(server, "/tools/slugify_text/v/2",
                                              'id="chain-problem"')
        assert 'id="chain-problem"' in shown
        assert "pointer is v2" in shown and "the chain says retired" in shown
        assert "dyntools activate slugify_text 1 --sign-key FILE" in shown
        # and a decision there builds on the chain: v2 stays retired for it
        assert _decide(server, "activate", 2).status_code == 409
    assert op.dt("review").returncode == 1
