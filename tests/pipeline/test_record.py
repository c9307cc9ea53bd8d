"""Issue 28: `dyntools record NAME --params JSON --capabilities FILE` runs a capability tool
once for real through the broker and makes the exchanges it made the example of a new version
(a secret a server echoed recorded as `[redacted:NAME]`, which replay knows), verified by
replaying them, then held or activated as the approval policy and the decision chain say.
Through the real CLI against a real server on 127.0.0.1."""

from __future__ import annotations

import ast
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from dyntools.gate import check_source
from dyntools.pipeline.record import literal, with_example
from tests.pipeline.test_capability_cli import run

TOKEN = "s3cr3t-token-value-42"


@pytest.fixture
def server() -> Iterator[int]:
    """/page: a title; /echo: the Authorization header it got, in its text; /boom: a 500."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.startswith("/boom"):
                body, status = b"down", 500
            elif self.path.startswith("/echo"):
                body = f"<title>you sent {self.headers.get('Authorization')}</title>".encode()
                status = 200
            else:
                body, status = b"<title>Recorded page</title>", 200
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def fetcher(port: int, *, secret: bool = False) -> str:
    secrets = ', "secrets": ["API_TOKEN"]' if secret else ""
    return (
        '"""Fetches a page and returns its title."""\nimport re\n\nimport host\n\n'
        'NAME = "fetch_title"\nDESCRIPTION = "Fetches a page and returns its title."\n'
        'PARAMS = {"type": "object", "properties": {"path": {"type": "string"}}, '
        '"required": ["path"]}\n'
        f'CAPABILITIES = {{"http": ["127.0.0.1:{port}"]{secrets}}}\n\n\n'
        "def run(params):\n"
        f'    page = host.http_get("http://127.0.0.1:{port}/" + params["path"])\n'
        '    match = re.search(r"<title>(.*?)</title>", page["text"])\n'
        '    return {"title": match.group(1) if match else None}\n')


def policy(tmp_path: Path, port: int, *, secret: bool = False) -> str:
    path = tmp_path / "policy.toml"
    text = f'[http]\nallow = ["127.0.0.1:{port}"]\nallow_private = ["127.0.0.1/32"]\n'
    if secret:
        text += (f'[secrets.API_TOKEN]\nenv = "API_TOKEN"\nhosts = ["127.0.0.1:{port}"]\n')
    path.write_text(text)
    return str(path)


def _made(tmp_path: Path, port: int, *extra: str, secret: bool = False) -> list[str]:
    source = tmp_path / "fetch_title.py"
    source.write_text(fetcher(port, secret=secret))
    where = ["--registry", str(tmp_path / "reg")]
    done = run("ensure", "fetch_title", "--generator", "file", "--from", str(source), *where,
               *extra)
    assert done.returncode == 0, done.stderr
    return where


def _examples(tmp_path: Path, version: int) -> list[dict]:
    source = (tmp_path / "reg" / "fetch_title" / f"v{version}.py").read_text()
    module = ast.parse(source)
    node = next(n for n in module.body if isinstance(n, ast.Assign)
                and getattr(n.targets[0], "id", "") == "EXAMPLES")
    return list(ast.literal_eval(node.value))


def test_record_makes_a_new_version_with_the_call_as_its_example(tmp_path: Path,
                                                                 server: int) -> None:
    where = _made(tmp_path, server)
    done = run("record", "fetch_title", "--params", '{"path": "page"}', *where,
               "--capabilities", policy(tmp_path, server))
    assert done.returncode == 0, done.stderr
    assert f"GET http://127.0.0.1:{server}/page -> 200" in done.stdout
    assert "fetch_title v2: the recorded example, verified and activated" in done.stdout
    [example] = _examples(tmp_path, 2)
    assert example["params"] == {"path": "page"}
    assert example["result"] == {"title": "Recorded page"}
    assert example["http"][0]["request"] == {"method": "GET",
                                             "url": f"http://127.0.0.1:{server}/page"}
    assert example["http"][0]["response"]["text"] == "<title>Recorded page</title>"
    manifest = json.loads((tmp_path / "reg" / "fetch_title" / "manifest.json").read_text())
    provenance = manifest["versions"][1]["provenance"]
    assert (provenance["generator"], provenance["recorded_from"]) == ("record", 1)
    assert provenance["verification"]["counts"]["passed"] == 1  # replayed, no network
    # recording again with the same params replaces that example (no duplicate)
    again = run("record", "fetch_title", "--params", '{"path": "page"}', *where,
                "--capabilities", policy(tmp_path, server), "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["recorded_from"] == 2
    assert len(_examples(tmp_path, 3)) == 1


def test_an_echoed_secret_is_recorded_redacted_and_replayed(
        tmp_path: Path, server: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_TOKEN", TOKEN)
    where = _made(tmp_path, server, secret=True)
    done = run("record", "fetch_title", "--params", '{"path": "echo"}', *where,
               "--capabilities", policy(tmp_path, server, secret=True),
               env={"API_TOKEN": TOKEN})
    assert done.returncode == 0, done.stderr
    source = (tmp_path / "reg" / "fetch_title" / "v2.py").read_text()
    assert TOKEN not in source and TOKEN not in done.stdout + done.stderr
    [example] = _examples(tmp_path, 2)
    # the header's whole value was a form of the secret: what the tool saw, and replays
    assert example["result"] == {"title": "you sent [redacted:API_TOKEN]"}
    assert "[redacted:API_TOKEN]" in example["http"][0]["response"]["text"]
    # a recording whose marker names a secret the tool does not declare is not its own
    forged = source.replace("[redacted:API_TOKEN]", "[redacted:OTHER_TOKEN]")
    (tmp_path / "forged.py").write_text(forged)
    refused = run("approve", "fetch_title", "--file", str(tmp_path / "forged.py"), *where)
    assert refused.returncode == 12
    assert "[redacted:OTHER_TOKEN], a secret the tool does not declare" in refused.stderr


def test_what_record_refuses_and_writes_nothing_for(tmp_path: Path, server: int) -> None:
    where = _made(tmp_path, server)
    caps = ["--capabilities", policy(tmp_path, server)]
    nothing = run("record", "fetch_title", "--params", '{"path": "page"}', *where)
    assert nothing.returncode == 2 and "nothing is granted" in nothing.stderr
    failed = run("record", "fetch_title", "--params", '{"path": "boom"}', *where, *caps)
    assert failed.returncode == 18  # the call's own error: http_error
    assert "nothing was recorded" in failed.stderr
    bad = run("record", "fetch_title", "--params", '{"path": 3}', *where, *caps)
    assert bad.returncode == 2 and "invalid_params" in bad.stderr
    assert run("ensure", "slugify_text", *where).returncode == 0
    pure = run("record", "slugify_text", "--params", '{"text": "a"}', *where, *caps)
    assert pure.returncode == 2 and "declares no http hosts" in pure.stderr
    manifest = json.loads((tmp_path / "reg" / "fetch_title" / "manifest.json").read_text())
    assert len(manifest["versions"]) == 1


def test_the_new_version_follows_the_approval_policy_and_the_chain(tmp_path: Path,
                                                                  server: int) -> None:
    keys = tmp_path / "alice.key"
    assert run("keygen", str(keys)).returncode == 0
    trusted = ["--trusted-keys", f"{keys}.pub"]
    where = _made(tmp_path, server, *trusted, "--sign-key", str(keys))
    caps = ["--capabilities", policy(tmp_path, server)]
    unsigned = run("record", "fetch_title", "--params", '{"path": "page"}', *where, *caps,
                   *trusted)
    assert unsigned.returncode == 14  # activating is a decision a trusted key signs
    held = run("record", "fetch_title", "--params", '{"path": "page"}', *where, *caps,
               *trusted, "--require-approval")
    assert held.returncode == 17, held.stderr
    assert "dyntools approve fetch_title 2" in held.stdout
    signed = run("approve", "fetch_title", "2", *where, *trusted, "--sign-key", str(keys))
    assert signed.returncode == 0, signed.stderr
    manifest = json.loads((tmp_path / "reg" / "fetch_title" / "manifest.json").read_text())
    assert manifest["current"] == 2 and manifest["chain"][-1]["action"] == "approve"


SOURCE = ('"""Echoes."""\nNAME = "echo_it"\nDESCRIPTION = "Echoes."\n'
          'PARAMS = {"type": "object"}\n\n\ndef run(params):\n    return params\n')


@pytest.mark.parametrize("text", ["tab\there", "line\nbreak", 'quote " and \\', "café 😀"])
def test_with_example_writes_what_reads_back_and_the_gate_accepts(text: str) -> None:
    example = {"params": {"t": text}, "result": {"t": text}}
    added = with_example(SOURCE, example)
    assert added.startswith(SOURCE.split("\n\n\n", maxsplit=1)[0] + "\nEXAMPLES = [")
    assert added.endswith("def run(params):\n    return params\n")  # the rest kept as is
    report = check_source(added)
    assert report.accepted, report.findings
    node = ast.parse(added).body[4]
    assert isinstance(node, ast.Assign) and ast.literal_eval(node.value) == [example]


def test_with_example_replaces_the_same_params_and_escapes_what_hides() -> None:
    once = with_example(SOURCE, {"params": {"t": "a"}, "result": {"t": "1"}})
    again = with_example(once, {"params": {"t": "a"}, "result": {"t": "2"}})
    assert again.count('"params"') == 1 and '"2"' in again  # the same params: replaced
    both = with_example(again, {"params": {"t": "b"}, "result": {"t": "b"}})
    assert both.count('"params"') == 2
    assert literal({"k": [1, 2.5, None, True, "é"]}) == '{"k": [1, 2.5, None, True, "é"]}'
    hidden = literal("a\u202eb\u200bc\x07")
    assert hidden == '"a\\u202eb\\u200bc\\x07"' and ast.literal_eval(hidden) == \
        "a\u202eb\u200bc\x07"
    # what a reader would not see stays refused by the gate, escaped or not: a recording
    # of a page holding it cannot become an example (the gate says where)
    report = check_source(with_example(SOURCE, {"params": {}, "result": {"t": "\u202e"}}))
    assert not report.accepted and {f.code for f in report.findings} == {"DT510"}
