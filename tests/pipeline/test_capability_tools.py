"""Capability tools through the pipeline (issue 11): verification replays recorded exchanges,
real calls go through the broker to a server on 127.0.0.1 under an operator policy, secrets
are added by the host and redacted from everything a tool returns, `host.call_tool`
composes through the catalog, and the `capabilities` approval policy holds back versions
that widen what a tool reaches."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dyntools.capabilities import policy_from_mapping
from dyntools.catalog.core import Catalog
from dyntools.errors import (
    CapabilityViolation,
    DyntoolsError,
    PendingApproval,
    VerificationFailed,
)
from dyntools.pipeline.dyntools import Dyntools
from tests.support.local_http import LocalHttpServer, QuietHandler

from .conftest import CountingGenerator

SECRET = "tok-7c1f9e2b5a"


class Server:
    """A page server on 127.0.0.1 that echoes the request's Authorization header."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                owner.requests.append({"path": self.path,
                                       "authorization": self.headers.get("Authorization")})
                body = (f"<title>Page {self.path}</title> auth={self.headers.get('Authorization')}"
                        ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("X-Echo", str(self.headers.get("Authorization")))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                owner.requests.append({"path": self.path, "method": "POST",
                                       "body": self.rfile.read(length).decode()})
                self.send_response(201)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.served = LocalHttpServer(Handler).start()
        self.port = self.served.port

    def close(self) -> None:
        self.served.close()


@pytest.fixture
def server() -> Iterator[Server]:
    running = Server()
    yield running
    running.close()


def fetcher(port: int, *, name: str = "fetch_page", examples: list[Any] | None = None,
            extra_hosts: tuple[str, ...] = (), secrets: tuple[str, ...] = (),
            tools: tuple[str, ...] = (), body: str | None = None) -> str:
    hosts = [f"127.0.0.1:{port}", *extra_hosts]
    capabilities: dict[str, list[str]] = {"http": hosts}
    if secrets:
        capabilities["secrets"] = list(secrets)
    if tools:
        capabilities["tools"] = list(tools)
    if examples is None:
        url = f"http://127.0.0.1:{port}/a"
        examples = [{"params": {"path": "/a"}, "result": {"text": "<title>A</title>"},
                     "http": [{"request": {"method": "GET", "url": url},
                               "response": {"status": 200, "text": "<title>A</title>"}}]}]
    run = body or (f'    page = host.http_get("http://127.0.0.1:{port}" + params["path"])\n'
                   '    return {"text": page["text"]}\n')
    return (f'"""Fetches a page."""\nimport host\n\nNAME = {name!r}\n'
            'DESCRIPTION = "Fetches a page."\n'
            'PARAMS = {"type": "object", "properties": {"path": {"type": "string"}}}\n'
            f"CAPABILITIES = {json.dumps(capabilities)}\n"
            f"EXAMPLES = {examples!r}\n\n\ndef run(params):\n{run}")


def granting(port: int, **extra: Any) -> Any:
    data: dict[str, Any] = {"http": {"allow": [f"127.0.0.1:{port}"],
                                     "allow_private": ["127.0.0.1/32"]}}
    data.update(extra)
    return policy_from_mapping(data)


def pipeline(root: Path, sources: dict[str, str], policy: Any = None, **options: Any) -> Dyntools:
    return Dyntools(root, generator=CountingGenerator(sources), capabilities=policy, **options)


def test_verification_replays_and_a_real_call_goes_through_the_broker(
        tmp_path: Path, server: Server) -> None:
    with pipeline(tmp_path / "reg", {"fetch_page": fetcher(server.port)},
                  granting(server.port)) as dt:
        result = dt.ensure("fetch_page")
        assert result.created and not server.requests  # verified without the network
        contract = result.record.provenance["verification"]["examples"]
        assert contract[0]["http"][0]["request"]["url"].endswith("/a")
        assert dt.call("fetch_page", {"path": "/live"}) == {
            "text": "<title>Page /live</title> auth=None"}
        assert server.requests == [{"path": "/live", "authorization": None}]


def test_an_unrecorded_request_fails_verification(tmp_path: Path, server: Server) -> None:
    no_recording = [{"params": {"path": "/a"}, "result": {"text": "<title>A</title>"}}]
    source = fetcher(server.port, examples=no_recording)
    with pipeline(tmp_path / "reg", {"fetch_page": source}, granting(server.port)) as dt, \
            pytest.raises(VerificationFailed) as failed:
        dt.ensure("fetch_page")
    example = failed.value.details["verification"]["examples"][0]
    assert example["error"]["reason"] == "unrecorded_request"
    assert not server.requests


def test_a_recorded_exchange_never_made_fails_verification(tmp_path: Path,
                                                           server: Server) -> None:
    url = f"http://127.0.0.1:{server.port}/a"
    recorded = [{"params": {}, "result": {"text": "x"},
                 "http": [{"request": {"method": "GET", "url": url},
                           "response": {"status": 200, "text": "x"}}]}]
    source = fetcher(server.port, examples=recorded, body='    return {"text": "x"}\n')
    with pipeline(tmp_path / "reg", {"fetch_page": source}) as dt, \
            pytest.raises(VerificationFailed, match="never requested"):
        dt.ensure("fetch_page")


def test_without_a_policy_a_verified_tool_is_refused_at_call_time(
        tmp_path: Path, server: Server) -> None:
    with pipeline(tmp_path / "reg", {"fetch_page": fetcher(server.port)}) as dt:
        dt.ensure("fetch_page")  # replay needs no policy
        with pytest.raises(CapabilityViolation, match="no capability policy"):
            dt.call("fetch_page", {"path": "/x"})
    assert not server.requests


def test_a_declared_host_the_policy_does_not_allow_is_a_violation(
        tmp_path: Path, server: Server) -> None:
    recorded = [{"params": {}, "result": {"status": 200, "headers": {}, "text": ""},
                 "http": [{"request": {"method": "GET", "url": "https://example.com/"},
                           "response": {"status": 200, "text": ""}}]}]
    source = fetcher(server.port, extra_hosts=("example.com",), examples=recorded, body=(
        '    return host.http_get("https://example.com/")\n'))
    # the operator's policy holds at verification too: example.com is not granted
    with pipeline(tmp_path / "reg", {"fetch_page": source}, granting(server.port)) as dt, \
            pytest.raises(VerificationFailed):
        dt.ensure("fetch_page")


def test_a_secret_is_added_by_the_host_and_redacted_from_the_result(
        tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_TOKEN", SECRET)
    policy = granting(server.port, secrets={"DEMO_TOKEN": {
        "env": "DEMO_TOKEN", "hosts": [f"127.0.0.1:{server.port}"]}})
    body = (f'    page = host.http_get("http://127.0.0.1:{server.port}" + params["path"])\n'
            '    return {"text": page["text"], "echo": page["headers"].get("x-echo"),\n'
            '            "reversed": page["text"][::-1][:5]}\n')
    url = f"http://127.0.0.1:{server.port}/a"
    recorded = [{"params": {"path": "/a"}, "result": {"text": "t", "echo": None,
                                                      "reversed": "t"},
                 "http": [{"request": {"method": "GET", "url": url},
                           "response": {"status": 200, "text": "t"}}]}]
    source = fetcher(server.port, secrets=("DEMO_TOKEN",), examples=recorded, body=body)
    with pipeline(tmp_path / "reg", {"fetch_page": source}, policy) as dt:
        dt.ensure("fetch_page")
        result = dt.call("fetch_page", {"path": "/s"})
    assert server.requests[0]["authorization"] == f"Bearer {SECRET}"  # the host sent it
    assert SECRET not in json.dumps(result)
    assert "[redacted:DEMO_TOKEN]" in result["text"]
    assert "[redacted:DEMO_TOKEN]" in result["echo"]
    log = (tmp_path / "reg" / "audit.log")
    assert not log.exists() or SECRET not in log.read_text()


def test_call_tool_composes_through_the_catalog(tmp_path: Path) -> None:
    composer = (
        '"""Shouts a slug."""\nimport host\n\nNAME = "shout_slug"\n'
        'DESCRIPTION = "Uppercases the slug of a text."\n'
        'PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}\n'
        'CAPABILITIES = {"tools": ["make_slug"]}\n'
        'EXAMPLES = [{"params": {"text": "a b"}, "result": {"slug": "A-B"}}]\n\n\n'
        "def run(params):\n"
        '    return {"slug": host.call_tool("make_slug", {"text": params["text"]})["slug"]'
        ".upper()}\n")
    policy = policy_from_mapping({"tools": {"allow": ["make_slug"]}})
    with Catalog(pipeline(tmp_path / "reg", {"shout_slug": composer}, policy)) as catalog:
        @catalog.tool
        def make_slug(text: str) -> dict[str, str]:
            """Hand-written: a slug."""
            return {"slug": "-".join(text.split())}

        catalog.resolve("shout_slug")  # verification composes through the catalog
        assert catalog.call("shout_slug", {"text": "x y z"}) == {"slug": "X-Y-Z"}


def test_composition_cannot_loop(tmp_path: Path) -> None:
    def looping(name: str, other: str) -> str:
        return (f'"""Calls {other}."""\nimport host\n\nNAME = "{name}"\n'
                f'DESCRIPTION = "Calls {other}."\nPARAMS = {{"type": "object"}}\n'
                f'CAPABILITIES = {{"tools": ["{other}"]}}\n\n\n'
                f'def run(params):\n    return host.call_tool("{other}", params)\n')
    policy = policy_from_mapping({"tools": {"allow": ["ping", "pong"]}})
    with pipeline(tmp_path / "reg", {"ping": looping("ping", "pong"),
                                     "pong": looping("pong", "ping")}, policy) as dt:
        dt.ensure("ping")
        dt.ensure("pong")
        with pytest.raises(Exception, match="would loop"):
            dt.call("ping", {})


def test_the_capabilities_policy_holds_back_versions_that_widen(tmp_path: Path,
                                                                server: Server) -> None:
    root = tmp_path / "reg"
    root.mkdir()
    (root / "config.json").write_text('{"format": 1, "approval": "capabilities"}')
    wide = fetcher(server.port, extra_hosts=("example.com",))
    generator = CountingGenerator({"fetch_page": fetcher(server.port)})
    with Dyntools(root, generator=generator, capabilities=granting(server.port)) as dt:
        first = dt.ensure("fetch_page")
        assert first.pending  # a first version that declares capabilities waits
        with pytest.raises(PendingApproval):
            dt.call("fetch_page", {"path": "/a"})
        dt.approve("fetch_page", first.version, reason="read it")
        same = dt.ensure("fetch_page", new_version=True)
        assert not same.pending  # reaches nothing new: no person needed
        generator.sources["fetch_page"] = wide
        widened = dt.ensure("fetch_page", new_version=True)
        assert widened.pending  # reaches example.com too: waits again
        assert dt.registry.current("fetch_page").version == same.version


def test_tools_that_compose_each_other_cannot_deadlock_past_their_deadline(
        tmp_path: Path) -> None:
    # ping holds ping's only worker and waits for pong's; pong holds pong's and waits for
    # ping's. Neither chain loops, so only the call's time budget can end the wait.
    def composing(name: str, other: str) -> str:
        return (f'"""Composes {other}."""\nimport host\n\nNAME = "{name}"\n'
                f'DESCRIPTION = "Composes {other}."\n'
                'PARAMS = {"type": "object", "properties": {"stop": {"type": "boolean"}}}\n'
                f'CAPABILITIES = {{"tools": ["meet", "{other}"]}}\n'
                'EXAMPLES = [{"params": {"stop": True}, "result": {"done": True}}]\n\n\n'
                "def run(params):\n"
                '    if params.get("stop"):\n        return {"done": True}\n'
                '    host.call_tool("meet", {})\n'
                f'    return host.call_tool("{other}", {{"stop": True}})\n')
    policy = policy_from_mapping({"tools": {"allow": ["meet", "ping", "pong"]}})
    both_in = threading.Barrier(2, timeout=20)
    catalog = Catalog(pipeline(tmp_path / "reg", {"ping": composing("ping", "pong"),
                                                  "pong": composing("pong", "ping")},
                               policy, pool_size=1))

    @catalog.tool
    def meet() -> dict[str, bool]:
        """Hand-written: returns once both outer calls hold their worker."""
        both_in.wait()
        return {"met": True}

    catalog.resolve("ping")
    catalog.resolve("pong")
    outcomes: dict[str, Any] = {}

    def call(name: str) -> None:
        started = time.monotonic()
        try:
            outcomes[name] = catalog.call(name, {}, timeout=3.0)
        except DyntoolsError as exc:
            outcomes[name] = exc.reason
        outcomes[name + " s"] = time.monotonic() - started

    threads = [threading.Thread(target=call, args=(name,), daemon=True)
               for name in ("ping", "pong")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads), "the two calls deadlocked"
    catalog.close()
    # The deadline breaks the cycle: at least one call ends on it. The other may then get
    # the worker the first one let go of before its own deadline (a loaded machine starts
    # the two calls far enough apart) and finish: that is no deadlock either.
    ended = [outcomes[name] for name in ("ping", "pong")]
    assert any(outcome in ("timeout", "runtime_error") for outcome in ended), ended
    assert all(outcome in ("timeout", "runtime_error", {"done": True}) for outcome in ended)
    assert outcomes["ping s"] < 10 and outcomes["pong s"] < 10


def test_a_composed_tool_may_only_read_while_its_composer_is_verified(
        tmp_path: Path, server: Server) -> None:
    # Verification replays the composer's own requests; a tool it composes runs for real
    # (issue 11: "call_tool at verification uses the real catalog"), but may only GET, so
    # verifying a version never acts on the world.
    poster = fetcher(server.port, name="post_note", examples=[], body=(
        "    try:\n"
        f'        host.http_post_json("http://127.0.0.1:{server.port}/notes", params)\n'
        "    except host.HttpError as exc:\n"
        '        return {"refused": exc.kind}\n'
        '    return {"posted": True}\n'))
    composer = (
        '"""Posts a note through another tool."""\nimport host\n\nNAME = "note_it"\n'
        'DESCRIPTION = "Posts a note through post_note."\nPARAMS = {"type": "object"}\n'
        'CAPABILITIES = {"tools": ["post_note"]}\n'
        'EXAMPLES = [{"params": {"text": "x"}, "result": {"refused": "read_only"}}]\n\n\n'
        'def run(params):\n    return host.call_tool("post_note", params)\n')
    policy = granting(server.port, tools={"allow": ["post_note"]})
    with pipeline(tmp_path / "reg", {"post_note": poster, "note_it": composer}, policy) as dt:
        dt.ensure("post_note")
        dt.ensure("note_it")  # verified: the composed POST was refused, nothing was sent
        assert server.requests == []
        assert dt.call("note_it", {"text": "live"}) == {"posted": True}  # a real call acts
    assert server.requests == [{"path": "/notes", "method": "POST", "body": '{"text":"live"}'}]


def test_a_call_runs_with_the_capabilities_of_the_version_it_runs_on(
        tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    # The declaration comes from the version the runtime checked out, not from an earlier
    # look at "current": a switch in between never runs v2's code with v1's capabilities.
    other = Server()
    try:
        v1 = fetcher(server.port)
        v2 = fetcher(other.port)  # declares and requests only the other server
        generator = CountingGenerator({"fetch_page": v1})
        policy = policy_from_mapping({"http": {
            "allow": [f"127.0.0.1:{server.port}", f"127.0.0.1:{other.port}"],
            "allow_private": ["127.0.0.1/32"]}})
        with Dyntools(tmp_path / "reg", generator=generator, capabilities=policy) as dt:
            first = dt.ensure("fetch_page").record
            generator.sources["fetch_page"] = v2
            dt.ensure("fetch_page", new_version=True, contract_change=True)
            real_current = dt.registry.current
            stale = iter([first])

            def current(name: str) -> Any:  # the first look sees v1, the runtime sees v2
                return next(stale, None) or real_current(name)

            monkeypatch.setattr(dt.registry, "current", current)
            assert dt.call("fetch_page", {"path": "/b"})["text"].startswith("<title>Page /b")
        assert other.requests and not server.requests
    finally:
        other.close()
