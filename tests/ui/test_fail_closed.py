"""The page's decisions on a host below the sandbox's default minimum (no seccomp, simulated:
tests/support/missing_layer.py): an approval's verification is refused (503,
`layer_unavailable`) and the version stays pending; with `--allow-weaker-sandbox` every page says so and the approval
runs. Over HTTP against `dyntools ui` itself, as the security tests drive it."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import httpx

from tests.support.missing_layer import SIMULATED, env_without_seccomp

from .browser import UiServer
from .scenes import cli, pending_scene


def _client(server: UiServer) -> httpx.Client:
    return httpx.Client(base_url=server.url, cookies={server.cookie_name: server.token},
                        follow_redirects=False, timeout=60)


def _approve(server: UiServer, registry: Path) -> tuple[httpx.Response, str]:
    """POST the approve decision of slugify_text v1 as the page's form does; the response
    and the version page seen before it."""
    sha256 = hashlib.sha256((registry / "slugify_text" / "v1.py").read_bytes()).hexdigest()
    with _client(server) as http:
        page = http.get("/tools/slugify_text/v/1").text
        csrf = re.search(r'<meta name="csrf-token" content="([0-9a-f]{64})">', page)
        assert csrf is not None
        answer = http.post("/tools/slugify_text/v/1/approve", headers={"origin": server.url},
                           data={"csrf": csrf.group(1), "sha256": sha256, "reason": "read it"})
    return answer, page


def _status(registry: Path) -> str:
    shown = cli("show", "slugify_text", "--version", "1", "--json", registry=registry)
    return str(json.loads(shown.stdout)["status"])


def test_an_approval_below_the_minimum_is_refused_and_the_opt_in_is_shown(
        tmp_path: Path) -> None:
    registry = pending_scene(tmp_path / "registry")
    env = env_without_seccomp(tmp_path / "no-seccomp")
    with UiServer(registry, env=env) as server:
        answer, page = _approve(server, registry)
    assert 'id="weaker-sandbox"' not in page
    assert answer.status_code == 503
    assert re.search(r"<code>[a-z]+/layer_unavailable</code>", answer.text), answer.text
    assert SIMULATED in answer.text and "--allow-weaker-sandbox" in answer.text
    assert _status(registry) == "pending"
    with UiServer(registry, "--allow-weaker-sandbox", env=env) as server:
        assert any(line.startswith("warning: --allow-weaker-sandbox: tool code may run")
                   for line in server.lines)
        answer, page = _approve(server, registry)
    assert 'id="weaker-sandbox"' in page and "--allow-weaker-sandbox" in page
    assert answer.status_code == 303, answer.text
    assert _status(registry) == "approved"
