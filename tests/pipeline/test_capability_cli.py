"""Capabilities through the real CLI (issue 11): --capabilities on exec, ensure and call, exit
codes for a refused request and a bad policy file, and what list, show, diff and review say
about what each version reaches (a widening called out)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import dyntools
from tests.support.local_http import LocalHttpServer, QuietHandler

DT = [sys.executable, "-m", "dyntools"]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return dyntools(*args, add_env=env)


@pytest.fixture
def page() -> Iterator[int]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            self.send_body(200, b"<title>Served \x1b[31mred</title>")

    with LocalHttpServer(Handler) as served:
        yield served.port


def source(port: int, hosts: list[str] | None = None) -> str:
    hosts = hosts or [f"127.0.0.1:{port}"]
    url = f"http://127.0.0.1:{port}/"
    example = {"params": {}, "result": {"text": "<title>x</title>"},
               "http": [{"request": {"method": "GET", "url": url},
                         "response": {"status": 200, "text": "<title>x</title>"}}]}
    return (f'"""Gets a page."""\nimport host\n\nNAME = "get_page"\n'
            'DESCRIPTION = "Gets a page."\nPARAMS = {"type": "object"}\n'
            f"CAPABILITIES = {json.dumps({'http': hosts})}\n"
            f"EXAMPLES = [{example!r}]\n\n\ndef run(params):\n"
            f'    return {{"text": host.http_get({url!r})["text"]}}\n')


def policy(tmp_path: Path, port: int) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(f'[http]\nallow = ["127.0.0.1:{port}"]\nallow_private = ["127.0.0.1/32"]\n')
    return path


def test_exec_runs_a_capability_tool_only_under_a_policy(tmp_path: Path, page: int) -> None:
    tool = tmp_path / "get_page.py"
    tool.write_text(source(page))
    refused = run("exec", str(tool), "--params", "{}")
    assert refused.returncode == 8, refused.stderr
    assert "no capability policy" in refused.stderr
    done = run("exec", str(tool), "--params", "{}", "--capabilities",
               str(policy(tmp_path, page)))
    assert done.returncode == 0, done.stderr
    # the page's escape sequence reaches the terminal escaped, never raw
    assert json.loads(done.stdout) == {"text": "<title>Served \x1b[31mred</title>"}
    assert "\x1b" not in done.stdout


def test_a_bad_policy_file_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[http]\nallow = ["http://example.com/"]\n')
    tool = tmp_path / "get_page.py"
    tool.write_text(source(1))
    for args in (("exec", str(tool), "--params", "{}"),
                 ("call", "get_page", "--params", "{}", "--registry", str(tmp_path))):
        done = run(*args, "--capabilities", str(bad))
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        assert "http.allow" in done.stderr and "scheme" in done.stderr
    env_policy = run("exec", str(tool), "--params", "{}",
                     env={"DYNTOOLS_CAPABILITIES": str(tmp_path / "missing.toml")})
    assert env_policy.returncode == 2 and "missing.toml" in env_policy.stderr


def test_ensure_call_and_review_through_the_cli(tmp_path: Path, page: int) -> None:
    reg = tmp_path / "reg"
    v1, v2 = tmp_path / "v1.py", tmp_path / "v2.py"
    v1.write_text(source(page))
    v2.write_text(source(page, [f"127.0.0.1:{page}", "api.example.com"]))
    granted = str(policy(tmp_path, page))
    made = run("ensure", "get_page", "--generator", "file", "--from", str(v1), "--registry",
               str(reg), "--capabilities", granted)
    assert made.returncode == 0, made.stderr
    called = run("call", "get_page", "--params", "{}", "--registry", str(reg),
                 "--capabilities", granted)
    assert called.returncode == 0, called.stderr
    assert "Served" in called.stdout
    assert run("call", "get_page", "--params", "{}", "--registry",
               str(reg)).returncode == 8  # no policy: nothing granted
    with_env = run("call", "get_page", "--params", "{}", "--registry", str(reg),
                   env={"DYNTOOLS_CAPABILITIES": granted})
    assert with_env.returncode == 0, with_env.stderr
    second = run("ensure", "get_page", "--generator", "file", "--from", str(v2),
                 "--new-version", "--registry", str(reg), "--capabilities", granted)
    assert second.returncode == 0, second.stderr

    listed = run("list", "--registry", str(reg))
    assert f"reaches http: 127.0.0.1:{page}, api.example.com" in listed.stdout
    listed_json = json.loads(run("list", "--registry", str(reg), "--json").stdout)
    assert listed_json["tools"][0]["capabilities"] == {
        "http": [f"127.0.0.1:{page}", "api.example.com"]}
    shown = run("show", "get_page", "--version", "1", "--registry", str(reg))
    assert f"# capabilities: http: 127.0.0.1:{page}" in shown.stdout
    graded = run("show", "get_page", "--registry", str(reg), "--capabilities", granted)
    assert f"# http 127.0.0.1:{page}: granted" in graded.stdout
    assert "# http api.example.com: REFUSED (not in the operator's http.allow)" in graded.stdout
    diff = run("diff", "get_page", "1", "2", "--registry", str(reg))
    assert "WIDENS CAPABILITIES: v2 reaches what v1 does not: http: api.example.com" in \
        diff.stderr
    assert diff.stdout.startswith("---")  # stdout stays a unified diff
    review = run("review", "--registry", str(reg))
    assert "WIDENS CAPABILITIES over v1: http: api.example.com" in review.stdout
    reviewed = json.loads(run("review", "--registry", str(reg), "--json").stdout)
    tool = reviewed["tools"][0]
    assert tool["changes"][0]["capabilities_added"] == {"http": ["api.example.com"]}
    assert tool["versions"][0]["capabilities"] == {"http": [f"127.0.0.1:{page}"]}


def test_under_the_capabilities_policy_ensure_waits_for_a_person(tmp_path: Path,
                                                                 page: int) -> None:
    reg = tmp_path / "reg"
    assert run("init", str(reg), "--approval", "capabilities").returncode == 0
    tool = tmp_path / "v1.py"
    tool.write_text(source(page))
    held = run("ensure", "get_page", "--generator", "file", "--from", str(tool),
               "--registry", str(reg))
    assert held.returncode == 17, held.stderr  # pending approval
    approved = run("approve", "get_page", "1", "--registry", str(reg), "--reason", "read it")
    assert approved.returncode == 0, approved.stderr
