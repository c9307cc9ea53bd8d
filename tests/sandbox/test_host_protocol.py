"""The capability request protocol through real locked-down workers (issue 11): the `host`
stubs in the worker, the runner's request loop, and HostCalls' checks of every frame. The
HTTP side is a fake session here; the broker itself is tested in tests/capabilities."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from dyntools.capabilities.hostcalls import MAX_TOOL_DEPTH, CapabilityHost, HostCalls
from dyntools.capabilities.policy import RequestBudget
from dyntools.errors import CapabilityViolation, SandboxTimeout, ToolRuntimeError
from dyntools.gate.capabilities import parse_capabilities
from dyntools.gate.policy import load_policy
from dyntools.sandbox import SandboxLimits, WorkerPool, run_once

POLICY = load_policy()

HEADER = '''\
"""A capability tool."""
import host

NAME = "fetcher"
DESCRIPTION = "Fetches."
PARAMS = {"type": "object"}
CAPABILITIES = {"http": ["example.com"], "tools": ["helper"]}

'''


def tool(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fetcher.py"
    path.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    return path


class FakeSession:
    """Answers like a broker session: each request admitted to the call's budget first (a
    non-GET marked as sent), then a page, or an ordinary failure for /fail."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.budget: RequestBudget | None = None

    def counting(self, budget: RequestBudget) -> FakeSession:
        self.budget = budget
        return self

    def request(self, request: Any) -> dict[str, Any]:
        from dyntools.capabilities import HttpFailure

        assert self.budget is not None
        self.budget.admit()
        if request["method"] != "GET":
            self.budget.non_get = True  # sent: it may act on the world
        self.requests.append(dict(request))
        if "fail" in request["url"]:
            raise HttpFailure("404 Not Found", status=404, text="nope")
        return {"status": 200, "headers": {"content-type": "text/html"},
                "text": "<title>Hi</title> token=s3cret"}

    def redact(self, text: str) -> str:
        return text.replace("s3cret", "[redacted:TOKEN]")


def calls(session: FakeSession | None = None, **options: Any) -> HostCalls:
    declared = parse_capabilities({"http": ["example.com"], "tools": ["helper"]})
    fake = session or FakeSession()
    return HostCalls(CapabilityHost(), tool="fetcher", version=1, declared=declared,
                     http=lambda deadline, budget: fake.counting(budget), **options)


def test_a_tool_reaches_http_only_through_the_host(tmp_path: Path) -> None:
    path = tool(tmp_path, '''
        def run(params):
            page = host.http_get("https://example.com/", params={"q": "1"},
                                 headers={"accept": "text/html"})
            return {"status": page["status"], "text": page["text"]}
    ''')
    session = FakeSession()
    host = calls(session)
    result = run_once(path, {}, policy=POLICY, host=host)
    assert result == {"status": 200, "text": "<title>Hi</title> token=s3cret"}
    assert host.redact(result)["text"] == "<title>Hi</title> token=[redacted:TOKEN]"
    assert session.requests == [{"method": "GET", "url": "https://example.com/",
                                 "params": {"q": "1"}, "headers": {"accept": "text/html"}}]


def test_an_ordinary_failure_is_an_http_error_the_tool_may_catch(tmp_path: Path) -> None:
    path = tool(tmp_path, '''
        def run(params):
            try:
                host.http_get("https://example.com/fail")
            except host.HttpError as exc:
                return {"status": exc.status, "text": exc.text, "message": str(exc)}
            return {"status": None}
    ''')
    assert run_once(path, {}, policy=POLICY, host=calls()) == {
        "status": 404, "text": "nope", "message": "404 Not Found"}


def test_a_post_sends_its_json_body(tmp_path: Path) -> None:
    path = tool(tmp_path, '''
        def run(params):
            return host.http_post_json("https://example.com/items", {"a": [1, 2.5, None]})
    ''')
    session = FakeSession()
    host = calls(session)
    assert run_once(path, {}, policy=POLICY, host=host)["status"] == 200
    assert session.requests[0]["json"] == {"a": [1, 2.5, None]}
    assert host.non_get


def test_without_a_host_a_request_ends_the_call(tmp_path: Path) -> None:
    path = tool(tmp_path, '''
        def run(params):
            try:
                return host.http_get("https://example.com/")
            except Exception:
                return {"caught": True}
    ''')
    with pytest.raises(CapabilityViolation, match="grants none"):
        run_once(path, {}, policy=POLICY)


def test_a_violation_kills_the_worker_and_the_tool_cannot_catch_it(tmp_path: Path) -> None:
    path = tool(tmp_path, '''
        def run(params):
            try:
                host.http_get("https://example.com/")
            except BaseException:
                pass
            return {"survived": True}
    ''')

    def refuse(request: Any, deadline: float) -> dict[str, Any]:
        raise CapabilityViolation("host not declared")

    with WorkerPool(path, module_name="fetcher_v1", policy=POLICY, size=1) as pool:
        pool.start()
        with pytest.raises(CapabilityViolation, match="host not declared"):
            pool.call({}, host=refuse)
        assert pool.stats["replaced"] == 1  # the worker that asked was killed, never reused
        assert pool.call({}, host=calls()) == {"survived": True}


def test_host_functions_are_refused_while_the_module_loads(tmp_path: Path) -> None:
    path = tool(tmp_path, '''
        PAGE = host.http_get("https://example.com/")

        def run(params):
            return {}
    ''')
    with pytest.raises(ToolRuntimeError, match="only while run"):
        run_once(path, {}, policy=POLICY, host=calls())


@pytest.mark.parametrize("call, error", [
    ('host.http_get(1)', "TypeError: the url must be a str"),
    ('host.http_get("https://example.com/", params={"a": 1})', "TypeError: params must map"),
    ('host.http_get("https://example.com/", headers=[("a", "b")])', "TypeError: headers must"),
    ('host.http_post_json("https://example.com/", {1j: 2})', "TypeError"),
    ('host.call_tool("helper", [1])', "TypeError: call_tool: params must be a dict"),
    ('host.call_tool(None, {})', "TypeError: call_tool: the name must be a str"),
])
def test_bad_arguments_are_the_tools_own_error_before_anything_is_sent(
        tmp_path: Path, call: str, error: str) -> None:
    path = tool(tmp_path, f'''
        def run(params):
            {call}
            return {{}}
    ''')
    session = FakeSession()
    with pytest.raises(ToolRuntimeError, match=error.replace("(", r"\(")):
        run_once(path, {}, policy=POLICY, host=calls(session))
    assert session.requests == []


def test_call_tool_composes_through_the_callers_catalog(tmp_path: Path) -> None:
    path = tool(tmp_path, '''
        def run(params):
            try:
                host.call_tool("helper", {"x": "boom"})
            except host.ToolError as exc:
                failed = exc.reason
            return {"sum": host.call_tool("helper", {"x": 2})["double"], "failed": failed}
    ''')
    seen: list[tuple[str, dict[str, Any], tuple[str, ...]]] = []

    def helper(name: str, params: dict[str, Any], timeout: float,
               chain: tuple[str, ...]) -> dict[str, Any]:
        seen.append((name, params, chain))
        assert 0 < timeout <= SandboxLimits().timeout_s
        if params["x"] == "boom":
            raise ToolRuntimeError("helper raised ValueError")
        return {"double": params["x"] * 2}

    host = calls(tools=helper)
    host.replaying = True  # no operator policy: only verification composes without one
    assert run_once(path, {}, policy=POLICY, host=host) == {"sum": 4, "failed": "runtime_error"}
    assert seen == [("helper", {"x": "boom"}, ("fetcher",)), ("helper", {"x": 2}, ("fetcher",))]


# ------------------------------------------------------------------ HostCalls, frame by frame

FUTURE = time.monotonic() + 60


@pytest.mark.parametrize("frame", [
    "not a dict",
    {"op": "exec", "code": "x"},
    {"op": "http", "method": "DELETE", "url": "https://example.com/", "params": None,
     "headers": None},
    {"op": "http", "method": "GET", "url": 7, "params": None, "headers": None},
    {"op": "http", "method": "GET", "url": "https://example.com/", "params": {"a": 1},
     "headers": None},
    {"op": "http", "method": "GET", "url": "https://example.com/", "params": None,
     "headers": None, "extra": True},
    {"op": "http", "method": "GET", "url": "https://example.com/" + "a" * 9000,
     "params": None, "headers": None},
    {"op": "call_tool", "name": "helper"},
    {"op": "call_tool", "name": 3, "params": {}},
])
def test_a_frame_the_stubs_never_send_is_a_violation(frame: Any) -> None:
    with pytest.raises(CapabilityViolation, match="the worker sent"):
        calls()(frame, FUTURE)


def test_undeclared_tools_loops_and_depth_are_violations() -> None:
    def never(*args: Any) -> dict[str, Any]:
        raise AssertionError("must not be called")

    host = calls(tools=never)
    host.replaying = True
    with pytest.raises(CapabilityViolation, match="do not declare"):
        host({"op": "call_tool", "name": "other", "params": {}}, FUTURE)
    looped = calls(tools=never, chain=("helper",))
    looped.replaying = True
    with pytest.raises(CapabilityViolation, match="would loop"):
        looped({"op": "call_tool", "name": "helper", "params": {}}, FUTURE)
    deep = calls(tools=never, chain=tuple(f"t{i}" for i in range(MAX_TOOL_DEPTH - 1)))
    deep.replaying = True
    with pytest.raises(CapabilityViolation, match="depth limit"):
        deep({"op": "call_tool", "name": "helper", "params": {}}, FUTURE)


def test_without_a_policy_a_real_call_composes_nothing() -> None:
    host = calls(tools=lambda *a: {"x": 1})
    with pytest.raises(CapabilityViolation, match="no capability policy"):
        host({"op": "call_tool", "name": "helper", "params": {}}, FUTURE)


def test_without_a_policy_http_is_refused() -> None:
    declared = parse_capabilities({"http": ["example.com"]})
    host = CapabilityHost().live(tool="fetcher", version=1, declared=declared,
                                 tools=lambda *a: {"x": 1})
    with pytest.raises(CapabilityViolation, match="no capability policy"):
        host({"op": "http", "method": "GET", "url": "https://example.com/", "params": None,
              "headers": None}, FUTURE)


def test_more_requests_than_the_limit_end_the_call() -> None:
    # HTTP requests and composed tools count together, once each, in the call's budget.
    host = calls(tools=lambda *a: {"x": 1})
    host.replaying = True  # composing without a policy: a verification
    deadline = time.monotonic() + 60  # FUTURE was taken at collection, maybe long ago
    frame = {"op": "http", "method": "GET", "url": "https://example.com/", "params": None,
             "headers": None}
    for _ in range(10):
        host(frame, deadline)
    for _ in range(6):
        host({"op": "call_tool", "name": "helper", "params": {}}, deadline)
    assert host.budget.made == 16
    with pytest.raises(CapabilityViolation, match="more than 16 host requests") as info:
        host(frame, deadline)
    assert info.value.details["code"] == "http.too_many_requests"
    with pytest.raises(CapabilityViolation, match="more than 16 host requests"):
        host({"op": "call_tool", "name": "helper", "params": {}}, deadline)


# ------------------------------------------------------- a compromised worker, a deep result

# With the Python layers off the tool is a compromised worker: it writes its own request
# frame on the protocol pipe, then never reads the answer (and ends itself after 20 s).
STALLER = '''\
"""Sends a request frame and never reads the host's answer."""

NAME = "fetcher"
DESCRIPTION = "Stalls."
PARAMS = {"type": "object"}


def run(params):
    import gc
    import json
    import os
    import time

    gc.unfreeze()  # the worker froze everything it had after load (gc.freeze)
    channel = [o for o in gc.get_objects() if type(o).__name__ == "Channel"][0]
    frame = {"op": "http", "method": "GET", "url": "https://example.com/", "params": None,
             "headers": None}
    channel.send_text(channel.opening + '"request":' + json.dumps(frame) + "}")
    time.sleep(20)
    os._exit(0)
'''


def test_a_worker_that_never_reads_the_answer_cannot_stall_the_host(tmp_path: Path) -> None:
    # An answer larger than a pipe holds: a blocking write would wait for the worker to
    # read it, past the call's deadline, for as long as the worker likes.
    path = tmp_path / "staller.py"
    path.write_text(STALLER, encoding="utf-8")

    def answer(request: Any, deadline: float) -> dict[str, Any]:
        return {"ok": {"status": 200, "headers": {}, "text": "x" * 300_000}}

    started = time.monotonic()
    with pytest.raises(SandboxTimeout):
        run_once(path, {}, policy=POLICY, host=answer, limits=SandboxLimits(timeout_s=1.0),
                 _skip_layers=frozenset({"restricted", "audit_hook"}))
    assert time.monotonic() - started < 60  # a hang guard: the call's limit is 1 s


def test_a_result_nested_as_deep_as_json_allows_is_redacted_not_a_recursion_error(
        tmp_path: Path) -> None:
    path = tool(tmp_path, '''
        def run(params):
            page = host.http_get("https://example.com/")
            value = [page["text"]]
            for _ in range(params["depth"]):
                value = [{"k": value}]
            return {"deep": value, page["text"]: [1, None, True, 2.5]}
    ''')
    host = calls()
    result = run_once(path, {"depth": 450}, policy=POLICY, host=host)
    redacted = host.redact(result)
    inner = redacted["deep"]
    for _ in range(450):
        inner = inner[0]["k"]
    assert inner == ["<title>Hi</title> token=[redacted:TOKEN]"]
    assert redacted["<title>Hi</title> token=[redacted:TOKEN]"] == [1, None, True, 2.5]
    assert "<title>Hi</title> token=s3cret" in result  # the original is left as it was
