"""Hot loading: new calls go to the new version, running calls finish in the old one."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from dyntools.errors import UnknownTool, VersionUnusable
from dyntools.pipeline.runtime import Runtime
from dyntools.registry import Registry, VersionRecord
from tests.support.waiting import wait_for

from .helpers import tamper, tool_source


class FakePool:
    """Answers like the tool would, records its source and whether it was closed."""

    def __init__(self, record: VersionRecord, source: str) -> None:
        self.record, self.source = record, source
        self.closed = False
        self.gate = threading.Event()
        self.gate.set()

    def call(self, params: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        assert not self.closed, "a call reached a closed pool"
        self.gate.wait(5)
        return {"answer": f"v{self.record.version}"}

    def close(self, wait: bool = True) -> None:
        self.closed = True


@pytest.fixture
def pools() -> list[FakePool]:
    return []


@pytest.fixture
def runtime(registry: Registry, pools: list[FakePool]):
    def factory(record: VersionRecord, source: str) -> FakePool:
        pools.append(FakePool(record, source))
        return pools[-1]

    with Runtime(registry, pool_factory=factory) as rt:
        yield rt


def test_new_version_takes_new_calls(registry: Registry, runtime: Runtime, pools) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    assert runtime.call("echo_tool", {}) == {"answer": "v1"}
    assert pools[0].source == tool_source(answer="1").decode()
    registry.add_version("echo_tool", tool_source(answer="2"), {})
    assert runtime.active_version("echo_tool") == 2  # swapped on the registry's notice
    assert runtime.call("echo_tool", {}) == {"answer": "v2"}
    assert wait_for(lambda: pools[0].closed)
    registry.rollback("echo_tool", 1)
    assert runtime.call("echo_tool", {}) == {"answer": "v1"}


def test_old_pool_closes_only_after_its_running_call(
    registry: Registry, runtime: Runtime, pools
) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    runtime.load("echo_tool")
    pools[0].gate.clear()  # the next call into v1 blocks until released
    answers: list[dict] = []
    running = threading.Thread(target=lambda: answers.append(runtime.call("echo_tool", {})))
    running.start()
    assert wait_for(lambda: runtime.describe()["active"]["echo_tool"]["in_flight"] == 1)
    registry.add_version("echo_tool", tool_source(answer="2"), {})
    assert runtime.call("echo_tool", {}) == {"answer": "v2"}
    assert runtime.describe()["retiring"] == [{"tool": "echo_tool", "version": 1, "in_flight": 1}]
    assert not pools[0].closed
    pools[0].gate.set()
    running.join(5)
    assert answers == [{"answer": "v1"}]
    assert pools[0].closed and runtime.describe()["retiring"] == []


def test_quarantine_unloads_and_falls_back(registry: Registry, pools) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    registry.add_version("echo_tool", tool_source(answer="2"), {})
    with Runtime(registry, pool_factory=lambda r, s: pools.append(FakePool(r, s)) or pools[-1],
                 watch=True) as runtime:
        assert runtime.call("echo_tool", {}) == {"answer": "v2"}
        tamper(registry.path_of("echo_tool", 2))
        assert wait_for(lambda: runtime.active_version("echo_tool") == 1)
        assert runtime.call("echo_tool", {}) == {"answer": "v1"}
        tamper(registry.path_of("echo_tool", 1))
        assert wait_for(lambda: runtime.active_version("echo_tool") is None)
        with pytest.raises(VersionUnusable):
            runtime.call("echo_tool", {})


def test_unknown_tool(runtime: Runtime) -> None:
    with pytest.raises(UnknownTool):
        runtime.call("no_such_tool", {})


def test_an_edit_after_open_is_caught_at_load(registry: Registry, runtime: Runtime) -> None:
    registry.add_version("echo_tool", tool_source(answer="1"), {})
    tamper(registry.path_of("echo_tool", 1))  # no watcher: only the load-time check sees it
    with pytest.raises(VersionUnusable):
        runtime.call("echo_tool", {})
    assert registry.get("echo_tool", 1).status == "quarantined"


SPIN = '''"""Counts to n, slowly enough to still be running when the next version lands."""

NAME = "spin_tool"
DESCRIPTION = "Counts to n."
PARAMS = {"type": "object", "properties": {"n": {"type": "integer"}}}


def run(params):
    i = 0
    while i < params["n"]:
        i = i + 1
    return {"answer": "ANSWER", "count": i}
'''


def test_hot_load_through_real_sandbox_workers(registry: Registry) -> None:
    registry.add_version("spin_tool", SPIN.replace("ANSWER", "v1"), {})
    with Runtime(registry, pool_size=1) as runtime:
        assert runtime.call("spin_tool", {"n": 1}) == {"answer": "v1", "count": 1}
        long_call: dict[str, Any] = {}

        def call_v1() -> None:
            try:
                long_call["result"] = runtime.call("spin_tool", {"n": 10_000_000}, timeout=60)
            except Exception as exc:  # reported by the assertion below
                long_call["result"] = repr(exc)
            long_call["finished"] = time.monotonic()

        thread = threading.Thread(target=call_v1)
        thread.start()
        assert wait_for(lambda: runtime.describe()["active"]["spin_tool"]["in_flight"] == 1)
        registry.add_version("spin_tool", SPIN.replace("ANSWER", "v2"), {})
        landed = time.monotonic()
        assert runtime.call("spin_tool", {"n": 1}) == {"answer": "v2", "count": 1}
        thread.join(60)
        assert long_call["result"] == {"answer": "v1", "count": 10_000_000}
        # The V1 call was still running when V2 landed (else this test would prove nothing).
        assert long_call["finished"] > landed
        assert wait_for(lambda: runtime.describe()["retiring"] == [])
        assert runtime.describe()["active"]["spin_tool"]["version"] == 2
