"""The server's own defences, over HTTP on 127.0.0.1 against `dyntools ui` itself: the
session token, the CSRF token, Origin and Host checks, bounded bodies, clean 4xx pages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from dyntools.ui.security import CSP, MAX_BODY_BYTES
from tests.support.local_http import LocalHttpServer, QuietHandler

from .browser import UiServer
from .scenes import cli


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("security") / "registry"
    cli("init", str(root), registry=root)
    cli("ensure", "slugify_text", registry=root)
    cli("ensure", "slugify_text", "--new-version", registry=root)
    return root


@pytest.fixture(scope="module")
def server(registry: Path) -> Iterator[UiServer]:
    with UiServer(registry) as running:
        yield running


def client(server: UiServer, *, token: str | None = None) -> httpx.Client:
    cookies = {server.cookie_name: token if token is not None else server.token}
    return httpx.Client(base_url=server.url, cookies=cookies, follow_redirects=False,
                        timeout=30)


def csrf_of(server: UiServer) -> str:
    with client(server) as http:
        page = http.get("/tools/slugify_text/v/1").text
    match = re.search(r'<meta name="csrf-token" content="([0-9a-f]{64})">', page)
    assert match is not None
    return match.group(1)


def status_of(registry: Path, version: int) -> str:
    return json.loads(cli("show", "slugify_text", "--version", str(version), "--json",
                          registry=registry).stdout)["status"]


def retire(http: httpx.Client, server: UiServer, **overrides: Any) -> httpx.Response:
    data = {"reason": "attack", "csrf": overrides.pop("csrf", None)}
    headers = {"origin": server.url, **overrides.pop("headers", {})}
    return http.post("/tools/slugify_text/v/1/retire",
                     data={k: v for k, v in data.items() if v is not None}, headers=headers)


def refusal(response: httpx.Response) -> str:
    return json.loads(response.headers["x-dyntools-refusal"])["code"]


def test_every_page_needs_the_session_token(server: UiServer) -> None:
    for token in ("", "x" * 43, server.token[:-1] + ("A" if server.token[-1] != "A" else "B")):
        with client(server, token=token) as http:
            page = http.get("/")
            assert page.status_code == 303 and page.headers["location"] == "/login"
            assert http.get("/tools/slugify_text/v/1").status_code == 303
            stream = http.get("/runs/stream")
            assert stream.status_code == 401 and refusal(stream) == "no_session"
    with httpx.Client(base_url=server.url) as anonymous:
        assert anonymous.get("/login").status_code == 200
        assert anonymous.get("/static/ui.css").status_code == 200
        # Pages for a visitor without a session carry no CSRF token.
        assert 'name="csrf-token" content=""' in anonymous.get("/login").text
        wrong = anonymous.post("/login", data={"token": "not-the-token-at-all"},
                               headers={"origin": server.url})
        assert wrong.status_code == 401
        assert "not this server&#39;s session token" in wrong.text
        right = anonymous.post("/login", data={"token": server.token},
                               headers={"origin": server.url})
        assert right.status_code == 303
        cookie = right.headers["set-cookie"]
        assert cookie.startswith(f"{server.cookie_name}={server.token};")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        # Now the client holds the session cookie: the same page carries the CSRF token.
        assert 'name="csrf-token" content=""' not in anonymous.get("/login").text


def test_every_write_needs_the_csrf_token_and_this_origin(server: UiServer,
                                                          registry: Path) -> None:
    csrf = csrf_of(server)
    with client(server) as http:
        missing = retire(http, server)
        assert missing.status_code == 403 and refusal(missing) == "bad_csrf"
        wrong = retire(http, server, csrf="0" * 64)
        assert wrong.status_code == 403 and refusal(wrong) == "bad_csrf"
        foreign = retire(http, server, csrf=csrf, headers={"origin": "http://evil.example"})
        assert foreign.status_code == 403 and refusal(foreign) == "bad_origin"
        port_over = retire(http, server, csrf=csrf,
                           headers={"origin": f"http://127.0.0.1:{server.port + 1}"})
        assert refusal(port_over) == "bad_origin"
        nowhere = http.post("/tools/slugify_text/v/1/retire",
                            data={"reason": "x", "csrf": csrf})
        assert nowhere.status_code == 403 and refusal(nowhere) == "bad_origin"
        json_post = http.post("/tools/slugify_text/v/1/retire", json={"csrf": csrf},
                              headers={"origin": server.url})
        assert refusal(json_post) == "bad_csrf"
        check = http.post("/bench/check", content=b"import os",
                          headers={"origin": server.url})
        assert refusal(check) == "bad_csrf"
        # Writes are POST only.
        assert http.get("/tools/slugify_text/v/1/retire").status_code == 405
        assert refusal(http.put("/tools/slugify_text/v/1/retire")) == "method_not_allowed"
    assert status_of(registry, 1) == "approved"
    with client(server) as http:  # with both tokens and this origin, the same write works
        done = retire(http, server, csrf=csrf)
        assert done.status_code == 303
        assert done.headers["location"] == "/tools/slugify_text/v/1?done=retire"
    assert status_of(registry, 1) == "retired"


def test_a_host_that_is_not_the_bound_address_is_refused(server: UiServer) -> None:
    csrf = csrf_of(server)
    with client(server) as http:
        for host in ("evil.example", f"evil.example:{server.port}", f"127.0.0.1:{server.port + 1}",
                     f"127.0.0.2:{server.port}", "127.0.0.1"):
            page = http.get("/", headers={"host": host})
            assert page.status_code == 403 and refusal(page) == "bad_host", host
            write = retire(http, server, csrf=csrf, headers={"host": host, "origin": f"http://{host}"})
            assert refusal(write) == "bad_host", host
        assert http.get("/", headers={"host": f"localhost:{server.port}"}).status_code == 200


def test_every_response_carries_the_security_headers(server: UiServer) -> None:
    with client(server) as http:
        for path in ("/", "/tools/slugify_text/v/2", "/static/ui.js", "/nothing",
                     "/tools/BadName/v/1"):
            response = http.get(path)
            assert response.headers["content-security-policy"] == CSP, path
            assert response.headers["x-content-type-options"] == "nosniff", path
            assert response.headers["referrer-policy"] == "same-origin", path
            assert response.headers["x-frame-options"] == "DENY", path
        refused = http.get("/", headers={"host": "evil.example"})
        assert refused.headers["content-security-policy"] == CSP


def test_bad_input_gets_a_clean_4xx_page_and_the_server_carries_on(server: UiServer) -> None:
    csrf = csrf_of(server)
    cases = [
        ("GET", "/tools/no_such_tool", 404), ("GET", "/tools/no_such_tool/v/1", 404),
        ("GET", "/tools/slugify_text/v/99", 404), ("GET", "/tools/Bad..Name/v/1", 404),
        ("GET", "/tools/slugify_text/v/one", 404), ("GET", "/tools/%00/v/1", 404),
        ("GET", "/tools/slugify_text/diff?a=1", 400), ("GET", "/tools/slugify_text/diff?a=1&b=x", 400),
        ("GET", "/tools/slugify_text/diff?a=1&b=77", 404), ("GET", "/runs/stream?since=x", 400),
        ("GET", "/static/../pyproject.toml", 404), ("GET", "/?status=<script>&q=" + "x" * 5000, 200),
        ("GET", "/runs?tool=../../etc", 200),
    ]
    with client(server) as http:
        for method, path, expected in cases:
            response = http.request(method, path)
            assert response.status_code == expected, path
            assert "Traceback" not in response.text
        posts = [
            ("/tools/slugify_text/v/2/explode", {"csrf": csrf}, 404),
            ("/tools/slugify_text/v/99/approve", {"csrf": csrf}, 404),
            ("/tools/no_such_tool/v/1/reject", {"csrf": csrf, "reason": "x"}, 404),
            ("/tools/slugify_text/v/2/approve", {"csrf": csrf, "examples": "{not json"}, 400),
            ("/tools/slugify_text/v/2/approve", {"csrf": csrf, "examples": "[1, 2]"}, 400),
            ("/tools/slugify_text/v/2/activate", {"csrf": csrf, "reason": "r" * 3000}, 400),
            ("/tools/slugify_text/v/2/reject", {"csrf": csrf, "reason": "not pending"}, 400),
        ]
        for path, data, expected in posts:
            response = http.post(path, data=data, headers={"origin": server.url})
            assert response.status_code == expected, path
            assert "Traceback" not in response.text
        huge = http.post("/tools/slugify_text/v/2/reject", headers={"origin": server.url},
                         content=b"csrf=" + b"a" * (MAX_BODY_BYTES + 10),
                         )
        assert huge.status_code == 413
        form_bomb = http.post("/tools/slugify_text/v/2/reject",
                              headers={"origin": server.url,
                                       "content-type": "application/x-www-form-urlencoded"},
                              content=b"a=" + b"b" * (100 * 1024))
        assert form_bomb.status_code == 413
        assert http.get("/").status_code == 200  # still serving
    assert not any("Traceback" in line for line in server.lines)


def test_a_diff_of_hostile_sources_is_answered_and_the_server_carries_on(
        tmp_path: Path) -> None:
    # Two small files (24 KB) of two alternating lines: pairing every line with every
    # equal line (difflib without its junk heuristic) took minutes of the server's CPU.
    registry = tmp_path / "registry"
    cli("init", str(registry), registry=registry)
    folder = registry / "many_lines"
    folder.mkdir()
    for version, step in ((1, 2), (2, 3)):
        lines = [("    x = 1" if i % step else "    y = 2") for i in range(4000)]
        (folder / f"v{version}.py").write_text(
            '"""Many lines."""\nNAME = "many_lines"\nDESCRIPTION = "Many lines."\n'
            'PARAMS = {"type": "object"}\n\n\ndef run(params):\n' + "\n".join(lines)
            + "\n    return {}\n", encoding="utf-8")
    with UiServer(registry) as running, client(running) as http:
        response = http.get("/tools/many_lines/diff?a=1&b=2", timeout=30)
        assert response.status_code == 200
        assert 'id="diff-summary"' in response.text
        assert http.get("/").status_code == 200


def test_live_timelines_are_bounded_even_when_opened_at_once(server: UiServer) -> None:
    from dyntools.ui.routes import MAX_STREAMS

    opened = MAX_STREAMS + 8
    together = threading.Barrier(opened)
    statuses: list[int] = []
    hold = threading.Event()

    def open_stream() -> None:
        with client(server) as http:
            together.wait(timeout=30)
            with http.stream("GET", "/runs/stream?since=0") as response:
                statuses.append(response.status_code)
                if response.status_code == 200:
                    hold.wait(timeout=30)

    threads = [threading.Thread(target=open_stream) for _ in range(opened)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while len(statuses) < opened and time.monotonic() < deadline:
        time.sleep(0.05)
    hold.set()
    for thread in threads:
        thread.join(timeout=30)
    assert statuses.count(200) == MAX_STREAMS
    assert statuses.count(503) == opened - MAX_STREAMS
    with client(server) as http:  # the slots of closed streams are free again
        deadline = time.monotonic() + 10
        while True:
            with http.stream("GET", "/runs/stream?since=0") as response:
                if response.status_code == 200 or time.monotonic() > deadline:
                    break
            time.sleep(0.2)
        assert response.status_code == 200


def test_the_bench_is_bounded_and_answers_with_the_gates_findings(server: UiServer) -> None:
    csrf = csrf_of(server)
    headers = {"origin": server.url, "x-csrf-token": csrf, "content-type": "text/plain"}
    with client(server) as http:
        small = http.post("/bench/check", content=b"import os\n", headers=headers).json()
        assert not small["accepted"] and "DT201" in small["codes"]
        assert '<mark class="finding">os</mark>' in small["html"]
        big = http.post("/bench/check", content=b"#" * (300 * 1024), headers=headers).json()
        assert big["codes"] == ["DT008"] and big["bytes"] == 262145
        hostile = http.post("/bench/check", headers=headers,
                            content='x = "<script>alert(1)</script>\u202e"'.encode()).json()
        assert "<script>" not in hostile["html"] and "&lt;script&gt;" in hostile["html"]
        assert "\u202e" not in hostile["html"] and "U+202E" in hostile["html"]
        binary = http.post("/bench/check", content=bytes(range(256)), headers=headers).json()
        assert "DT002" in binary["codes"] or "DT001" in binary["codes"]


def test_a_cross_site_form_in_a_logged_in_browser_cannot_write(
        visit: Any, server: UiServer, registry: Path) -> None:
    """Another port on 127.0.0.1 is the same site: the browser sends the session cookie
    with its form. The Origin check and the CSRF token still refuse the write."""
    target = f"{server.url}/tools/slugify_text/v/2/retire"
    attack = (f'<!doctype html><form method=post action="{target}">'
              '<input name=reason value=pwned><input name=csrf value=guess></form>'
              "<script>document.forms[0].submit()</script>").encode()

    class Attacker(QuietHandler):
        def do_GET(self) -> None:
            self.send_body(200, attack)

    with LocalHttpServer(Attacker) as evil:
        tab = visit(server)
        with tab.page.expect_response(lambda r: r.url == target) as answer:
            tab.page.goto(evil.url("/"))
        assert answer.value.status == 403
        assert refusal_code(answer.value.headers) == "bad_origin"
    assert status_of(registry, 2) != "retired"


def refusal_code(headers: dict[str, str]) -> str:
    return str(json.loads(headers["x-dyntools-refusal"])["code"])


def test_a_non_loopback_host_is_refused_without_allow_remote(registry: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "dyntools", "ui", "--registry", str(registry),
                           "--host", "0.0.0.0", "--port", "0"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2
    assert "refusing to listen on '0.0.0.0': not a loopback address" in done.stderr
    assert "--allow-remote" in done.stderr
    missing = subprocess.run([sys.executable, "-m", "dyntools", "ui", "--registry",
                              str(registry.parent / "nowhere")], capture_output=True, text=True,
                             timeout=60, check=False)
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    assert "Traceback" not in done.stderr + missing.stderr


def test_the_token_is_printed_once_and_ctrl_c_exits_130(registry: Path, tmp_path: Path) -> None:
    with UiServer(registry) as running:
        assert sum(running.token in line for line in running.lines) == 2  # token, open link
    assert running.stop() == 130
    assert any("interrupted (SIGINT)" in line for line in running.lines)
    token_file = tmp_path / "token"
    token_file.write_text("a-fixed-token-for-scripts-0123456789\n")
    with UiServer(registry, "--token-file", str(token_file)) as fixed:
        assert not any("a-fixed-token" in line for line in fixed.lines)
        with httpx.Client(base_url=fixed.url, timeout=30) as http:
            http.cookies.set(fixed.cookie_name, "a-fixed-token-for-scripts-0123456789")
            assert http.get("/").status_code == 200
