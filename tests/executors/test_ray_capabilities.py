"""Capability tools on a real local Ray cluster (issues 11 and 13): the tool runs on a node,
every request it makes is answered on the driver (policy, broker, secrets, catalog), a
violation kills the node's worker, no secret ever travels to the node, and an actor lost
after a non-GET request (or a composed tool) is never retried, while one lost after GETs
only is retried once."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from dyntools.capabilities import policy_from_mapping
from dyntools.errors import CapabilityViolation, SandboxTimeout, WorkerCrashed
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry
from dyntools.sandbox import SandboxLimits
from tests.support.local_http import LocalHttpServer, QuietHandler
from tests.support.waiting import wait_for

from .conftest import require_ray

ray = require_ray()
SECRET = "tok-9d2e7a41c0b35f68"


class Server:
    """A server on 127.0.0.1 that records each request and echoes its Authorization header
    in the body and in an X-Echo header."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self._answer()

            def do_POST(self) -> None:
                self._answer()

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                auth = self.headers.get("Authorization")
                owner.requests.append({"method": self.command, "path": self.path,
                                       "authorization": auth, "body": body})
                text = f"{self.command} {self.path} auth={auth}".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("X-Echo", str(auth))
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

        self.served = LocalHttpServer(Handler).start()
        self.port = self.served.port
        self.base = f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.served.close()


@pytest.fixture
def server() -> Iterator[Server]:
    running = Server()
    yield running
    running.close()


def tool(name: str, capabilities: dict[str, Any], body: str, doc: str = "Asks the host.") -> bytes:
    """A capability tool without EXAMPLES (added to the registry directly)."""
    return (f'"""{doc}"""\nimport host\nimport time\n\nNAME = {name!r}\n'
            f"DESCRIPTION = {doc!r}\n"
            'PARAMS = {"type": "object", "properties": {"path": {"type": "string"}, '
            '"ms": {"type": "integer"}, "method": {"type": "string"}, '
            '"text": {"type": "string"}}}\n'
            f"CAPABILITIES = {json.dumps(capabilities)}\n\n\ndef run(params):\n{body}"
            ).encode()


def fetcher(server: Server, **capabilities: Any) -> bytes:
    """GET (or POST) base+path, then sleep ms, then answer with what came back."""
    body = (f'    url = "{server.base}" + params.get("path", "/")\n'
            '    if params.get("method") == "POST":\n'
            '        page = host.http_post_json(url, {"n": 1})\n'
            "    else:\n"
            "        page = host.http_get(url)\n"
            '    time.sleep(params.get("ms", 0) / 1000)\n'
            '    return {"status": page["status"], "text": page["text"],\n'
            '            "echo": page["headers"].get("x-echo")}\n')
    return tool("fetch_page", {"http": [f"127.0.0.1:{server.port}"], **capabilities}, body)


def granting(server: Server, **extra: Any) -> Any:
    return policy_from_mapping({"http": {"allow": [f"127.0.0.1:{server.port}"],
                                         "allow_private": ["127.0.0.1/32"]}, **extra})




def node_stats(executor: Any) -> list[dict[str, Any]]:
    return ray.get([h.stats.remote() for h in executor.handles()], timeout=30)


class Recorder:
    """Stands in for an actor handle: every actor task's arguments are pickled as Ray does
    (cloudpickle: the bytes that go to the node) and kept, then go to the real actor."""

    def __init__(self, handle: Any, sent: list[bytes]) -> None:
        self._handle = handle
        self._sent = sent

    def __getattr__(self, method: str) -> Any:
        real = getattr(self._handle, method)
        sent = self._sent

        class Method:
            def remote(self, *args: Any) -> Any:
                sent.append(ray.cloudpickle.dumps((method, args)))
                return real.remote(*args)

            def bind(self, *args: Any) -> Any:
                return real.bind(*args)

        return Method()


def record_lanes(executor: Any, monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    sent: list[bytes] = []
    with executor._lock:
        actors = list(executor._actors)
    for actor in actors:
        monkeypatch.setattr(actor.lane, "_handle", Recorder(actor.lane._handle, sent))
    return sent


def busy_actor_handle(executor: Any) -> Any:
    actors = executor.actors()
    index = next(i for i, a in enumerate(actors) if a["in_flight"])
    return executor.handles()[index]


def crash_busy_actor(executor: Any) -> None:
    """SIGKILL the process of the actor holding a call, as a crashed node would end it.
    Not ray.kill: that lets Ray end the actor's child processes first, and the node then
    sometimes reports its worker's death as the call's answer before the actor is gone (a
    crashed worker, not a lost actor: no retry decision to test)."""
    handle = busy_actor_handle(executor)
    os.kill(ray.get(handle.node_info.remote(), timeout=30)["pid"], signal.SIGKILL)


# ------------------------------------------------------------------------------- tests


def test_a_capability_tool_on_the_cluster_fetches_through_the_driver(
        registry: Registry, ray_executor: Any, server: Server) -> None:
    registry.add_version("fetch_page", fetcher(server), {})
    before = sum(s["host_requests"] for s in node_stats(ray_executor))
    with Dyntools(registry, executor=ray_executor, capabilities=granting(server)) as dt:
        assert dt.call("fetch_page", {"path": "/a"}) == {
            "status": 200, "text": "GET /a auth=None", "echo": "None"}
        # many at once, over both actors, each parked on its node while the driver fetches
        with __import__("concurrent.futures").futures.ThreadPoolExecutor(8) as threads:
            texts = list(threads.map(
                lambda i: dt.call("fetch_page", {"path": f"/p{i}"})["text"], range(16)))
    assert texts == [f"GET /p{i} auth=None" for i in range(16)]
    assert sorted(r["path"] for r in server.requests) == sorted(
        ["/a", *[f"/p{i}" for i in range(16)]])
    assert sum(s["host_requests"] for s in node_stats(ray_executor)) == before + 17


def test_the_default_transport_brokers_too(registry: Registry, ray_cluster: str,
                                          server: Server) -> None:
    """The public spelling, with replies polled as actor tasks (the package's executor
    polls over a compiled graph)."""
    registry.add_version("fetch_page", fetcher(server), {})
    with Dyntools(registry, executor="ray", ray_address=ray_cluster,
                  capabilities=granting(server)) as dt:
        assert dt.call("fetch_page", {"path": "/d"})["text"] == "GET /d auth=None"
        assert dt.call("fetch_page", {"path": "/e", "method": "POST"})["text"] == \
            "POST /e auth=None"
    assert [(r["method"], r["body"]) for r in server.requests] == [
        ("GET", ""), ("POST", '{"n":1}')]


def test_a_violation_on_the_cluster_ends_the_call_and_the_next_one_works(
        registry: Registry, ray_executor: Any, server: Server) -> None:
    """The tool asks for a host it does not declare: the driver's host refuses, the node
    kills that worker, and the call ends with the driver's CapabilityViolation."""
    # The URL comes in the params: the gate refuses an undeclared literal one (DT405).
    body = (f'    return {{"text": host.http_get(params.get("text") or "{server.base}/ok")'
            '["text"]}\n')
    registry.add_version("sneaky_fetch", tool(
        "sneaky_fetch", {"http": [f"127.0.0.1:{server.port}"]}, body), {})
    with Dyntools(registry, executor=ray_executor, capabilities=granting(server)) as dt:
        assert dt.call("sneaky_fetch", {})["text"] == "GET /ok auth=None"
        replaced = sum(s["pools"].get("sneaky_fetch@1", {}).get("replaced", 0)
                       for s in node_stats(ray_executor))
        refusals = sum(s["host_refusals"] for s in node_stats(ray_executor))
        with pytest.raises(CapabilityViolation) as caught:
            dt.call("sneaky_fetch", {"text": f"http://127.0.0.2:{server.port}/evil"})
        assert "127.0.0.2" in caught.value.message
        stats = node_stats(ray_executor)
        assert sum(s["host_refusals"] for s in stats) == refusals + 1
        assert sum(s["pools"].get("sneaky_fetch@1", {}).get("replaced", 0)
                   for s in stats) == replaced + 1  # that worker was killed, never reused
        assert all(s["parked"] == 0 for s in stats)
        assert dt.call("sneaky_fetch", {})["text"] == "GET /ok auth=None"
    assert [r["path"] for r in server.requests] == ["/ok", "/ok"]  # /evil never left


def test_a_secret_is_added_on_the_driver_and_never_reaches_the_node(
        registry: Registry, ray_executor: Any, server: Server,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_TOKEN", SECRET)
    policy = granting(server, secrets={"DEMO_TOKEN": {
        "env": "DEMO_TOKEN", "hosts": [f"127.0.0.1:{server.port}"]}})
    registry.add_version("fetch_page", fetcher(server, secrets=["DEMO_TOKEN"]), {})
    with Dyntools(registry, executor=ray_executor, capabilities=policy) as dt:
        dt.call("nap_tool", {})  # the actors are up: record what is sent to each of them
        sent = record_lanes(ray_executor, monkeypatch)
        result = dt.call("fetch_page", {"path": "/s"})
        post = dt.call("fetch_page", {"path": "/p", "method": "POST"})
    assert server.requests[0]["authorization"] == f"Bearer {SECRET}"  # the driver sent it
    assert server.requests[1]["authorization"] == f"Bearer {SECRET}"
    assert "[redacted:DEMO_TOKEN]" in result["text"] and "[redacted:DEMO_TOKEN]" in post["echo"]
    assert SECRET not in json.dumps([result, post])
    methods = {ray.cloudpickle.loads(blob)[0] for blob in sent}
    assert "resume" in methods  # the answers travelled through the recorder
    assert sent and not any(SECRET.encode() in blob for blob in sent)
    # nor does the operator's policy or the broker: only frames, answers and gated bytes
    assert not any(b"CapabilityPolicy" in blob or b"HttpBroker" in blob or
                   b"HostCalls" in blob for blob in sent)


def test_call_tool_from_a_tool_on_the_cluster(registry: Registry, ray_executor: Any) -> None:
    """The composed tool is found in the driver's registry and runs on the cluster too."""
    registry.add_version("make_slug", b'''"""Makes a slug."""
NAME = "make_slug"
DESCRIPTION = "Makes a slug."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"slug": "-".join(params["text"].split())}
''', {})
    body = ('    return {"slug": host.call_tool("make_slug", {"text": params["text"]})["slug"]'
            ".upper()}\n")
    registry.add_version("shout_slug", tool("shout_slug", {"tools": ["make_slug"]}, body), {})
    policy = policy_from_mapping({"tools": {"allow": ["make_slug"]}})
    with Dyntools(registry, executor=ray_executor, capabilities=policy) as dt:
        assert dt.call("shout_slug", {"text": "x y z"}) == {"slug": "X-Y-Z"}
        stats = node_stats(ray_executor)
    pools = {name for s in stats for name in s["pools"]}
    assert {"shout_slug@1", "make_slug@1"} <= pools  # both ran on the nodes


def test_the_driver_deadline_counts_time_spent_answering(
        registry: Registry, ray_executor: Any, server: Server,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A host that takes too long on the driver: the node kills the parked worker at the
    call's deadline, and the call is a timeout well before the driver's grace runs out."""
    registry.add_version("fetch_page", fetcher(server), {})
    from dyntools.capabilities.hostcalls import HostCalls

    real = HostCalls.__call__

    def slow(self: HostCalls, request: Any, deadline: float) -> dict[str, Any]:
        time.sleep(max(0.0, deadline - time.monotonic()) + 0.3)
        return real(self, request, deadline)

    monkeypatch.setattr(HostCalls, "__call__", slow)
    with Dyntools(registry, executor=ray_executor, capabilities=granting(server),
                  limits=SandboxLimits(timeout_s=1.0)) as dt:
        with pytest.raises(SandboxTimeout) as caught:
            dt.call("fetch_page", {"path": "/late"})
        assert caught.value.details.get("node")  # the node's timeout, not the driver's grace
        monkeypatch.setattr(HostCalls, "__call__", real)
        assert dt.call("fetch_page", {"path": "/b"})["text"] == "GET /b auth=None"
    assert wait_for(lambda: all(s["parked"] == 0 for s in node_stats(ray_executor)))


def _kill_mid_call(dt: Dyntools, executor: Any, server: Server,
                   params: dict[str, Any]) -> tuple[list[Any], list[BaseException]]:
    """Start the call, wait until its request reached the server (the tool then sleeps on
    its node), kill the actor that holds it."""
    answers: list[Any] = []
    errors: list[BaseException] = []

    def call() -> None:
        try:
            answers.append(dt.call("fetch_page", params))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    assert wait_for(lambda: len(server.requests) >= 1)
    time.sleep(0.2)  # the answer is back on the node: the tool sleeps
    crash_busy_actor(executor)
    thread.join(60)
    assert not thread.is_alive()
    return answers, errors


def test_an_actor_lost_after_a_get_is_retried_once(
        registry: Registry, ray_executor: Any, server: Server) -> None:
    registry.add_version("fetch_page", fetcher(server), {})
    with Dyntools(registry, executor=ray_executor, capabilities=granting(server)) as dt:
        dt.call("nap_tool", {})
        server.requests.clear()
        retries = ray_executor.retries
        answers, errors = _kill_mid_call(dt, ray_executor, server, {"path": "/g", "ms": 3000})
    assert errors == [] and answers[0]["text"] == "GET /g auth=None"
    assert ray_executor.retries == retries + 1
    assert [r["method"] for r in server.requests] == ["GET", "GET"]  # GETs repeat: fine


def test_an_actor_lost_after_a_post_is_never_retried(
        registry: Registry, ray_executor: Any, server: Server) -> None:
    registry.add_version("fetch_page", fetcher(server), {})
    with Dyntools(registry, executor=ray_executor, capabilities=granting(server)) as dt:
        dt.call("nap_tool", {})
        server.requests.clear()
        retries = ray_executor.retries
        answers, errors = _kill_mid_call(
            dt, ray_executor, server, {"path": "/p", "ms": 3000, "method": "POST"})
        assert dt.call("nap_tool", {}) == {"tag": "v1"}  # the cluster goes on
    assert answers == [] and len(errors) == 1 and isinstance(errors[0], WorkerCrashed)
    assert "not retried" in str(errors[0]) and errors[0].details["side_effects"] is True
    assert ray_executor.retries == retries
    assert [r["method"] for r in server.requests] == ["POST"]  # sent once, never again


def test_an_actor_lost_after_a_composed_tool_is_never_retried(
        registry: Registry, ray_executor: Any) -> None:
    """call_tool counts as a side effect: the composed tool may have acted."""
    registry.add_version("make_slug", b'''"""Makes a slug."""
NAME = "make_slug"
DESCRIPTION = "Makes a slug."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}}


def run(params):
    return {"slug": "-".join(params["text"].split())}
''', {})
    body = ('    slug = host.call_tool("make_slug", {"text": params["text"]})["slug"]\n'
            '    time.sleep(params.get("ms", 0) / 1000)\n'
            '    return {"slug": slug}\n')
    registry.add_version("slow_slug", tool("slow_slug", {"tools": ["make_slug"]}, body), {})
    policy = policy_from_mapping({"tools": {"allow": ["make_slug"]}})
    with Dyntools(registry, executor=ray_executor, capabilities=policy) as dt:
        assert dt.call("slow_slug", {"text": "a b"}) == {"slug": "a-b"}
        retries = ray_executor.retries

        def composed_calls() -> int:
            return sum(s["pools"].get("make_slug@1", {}).get("calls", 0)
                       for s in node_stats(ray_executor))

        before = composed_calls()
        errors: list[BaseException] = []

        def call() -> None:
            try:
                dt.call("slow_slug", {"text": "c d", "ms": 3000})
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=call)
        thread.start()
        assert wait_for(lambda: composed_calls() > before)  # composed: now it sleeps
        time.sleep(0.3)
        crash_busy_actor(ray_executor)
        thread.join(60)
    assert len(errors) == 1 and isinstance(errors[0], WorkerCrashed)
    assert "not retried" in str(errors[0]) and ray_executor.retries == retries
