"""The ray executor against a real local Ray cluster (started once per session on 127.0.0.1):
two actors, an actor killed mid-call, a tampered byte stream, a version switch under load."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from dyntools.errors import (
    Overloaded,
    SandboxTimeout,
    SourceRefused,
)
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import Registry
from dyntools.sandbox import SandboxLimits
from tests.support.waiting import wait_for

from .conftest import nap_source, require_ray

ray = require_ray()




def node_stats(executor: Any) -> list[dict[str, Any]]:
    return ray.get([h.stats.remote() for h in executor.handles()], timeout=30)


def test_dyntools_runs_calls_on_the_cluster(registry: Registry, ray_cluster: str) -> None:
    """The public spelling: Dyntools(path, executor="ray", ray_address=ADDR)."""
    with Dyntools(registry.root, executor="ray", ray_address=ray_cluster) as dt:
        assert dt.executor.name == "ray"
        assert dt.call("nap_tool", {"ms": 1}) == {"tag": "v1"}
        actors = dt.executor.actors()  # type: ignore[attr-defined]
        assert len(actors) == 1 and actors[0]["node_id"]
    # Closed with the Dyntools that built it: its actor is gone, the cluster stays up.
    assert ray.is_initialized()


def test_two_actors_share_the_load_and_each_gets_the_bytes_once(
        registry: Registry, ray_executor: Any) -> None:
    with Dyntools(registry, executor=ray_executor) as dt:
        with ThreadPoolExecutor(16) as threads:
            results = list(threads.map(lambda _: dt.call("nap_tool", {"ms": 20}), range(64)))
        assert results == [{"tag": "v1"}] * 64
        stats = node_stats(ray_executor)
        assert len(stats) == 2
        assert all(s["calls"] > 0 for s in stats), stats  # least-loaded spreads the calls
        key = ("nap_tool", 1, registry.current("nap_tool").sha256)  # type: ignore[union-attr]
        assert all(key in a["loaded"] for a in ray_executor.actors())
        assert all(s["loaded"] >= 1 and s["refused"] == 0 for s in stats)


def test_a_tampered_byte_stream_never_runs(
        registry: Registry, ray_executor: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bytes altered between the registry and the node: the node's hash check refuses them,
    nothing is compiled, and the error names both digests."""
    from dyntools.executors.ray_executor import RayPool

    real_init = RayPool.__init__

    def tampering_init(self: RayPool, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        shipment = self.shipment
        object.__setattr__(shipment, "source",
                           shipment.source.replace(b'"v-tamper"', b'"evil"'))

    monkeypatch.setattr(RayPool, "__init__", tampering_init)
    registry.add_version("nap_tool", nap_source("v-tamper"), {})  # a key no actor holds yet
    before = sum(s["refused"] for s in node_stats(ray_executor))
    with Dyntools(registry, executor=ray_executor) as dt:
        source = registry.current("nap_tool")
        assert source is not None
        # The runtime's preload already met the refusal; a call meets it again.
        with pytest.raises(SourceRefused) as caught:
            dt.call("nap_tool", {})
    assert caught.value.details["check"] == "sha256"
    assert caught.value.details["expected"] == source.sha256
    assert sum(s["refused"] for s in node_stats(ray_executor)) > before


def test_an_actor_killed_mid_call_is_retried_once_on_another(
        registry: Registry, ray_executor: Any) -> None:
    with Dyntools(registry, executor=ray_executor) as dt:
        dt.call("nap_tool", {})  # warm on both actors
        retries = ray_executor.retries
        answers: list[Any] = []
        call = threading.Thread(target=lambda: answers.append(
            dt.call("nap_tool", {"ms": 3000})))
        call.start()
        assert wait_for(lambda: any(a["in_flight"] for a in ray_executor.actors()))
        busy = next(a for a in ray_executor.actors() if a["in_flight"])
        handle = ray_executor.handles()[[a["index"] for a in ray_executor.actors()].index(
            busy["index"])]
        time.sleep(0.3)  # the call is inside the actor's worker now
        ray.kill(handle, no_restart=True)
        call.join(60)
        assert answers == [{"tag": "v1"}]
        assert ray_executor.retries == retries + 1
        # The dead actor was dropped and the node got a new one.
        assert busy["index"] not in [a["index"] for a in ray_executor.actors()]
        assert dt.call("nap_tool", {}) == {"tag": "v1"}
        assert wait_for(lambda: len(ray_executor.actors()) == 2 or (
            dt.call("nap_tool", {}) is None), timeout=30)


def test_a_version_switch_under_load(registry: Registry, ray_executor: Any) -> None:
    """Calls keep coming while v2 lands: none fails, calls in flight finish on v1, every call
    that starts after the switch gets v2, and v1's pools retire on every actor."""
    with Dyntools(registry, executor=ray_executor) as dt:
        dt.call("nap_tool", {})
        stop = threading.Event()
        seen: list[tuple[float, float, str]] = []
        failures: list[BaseException] = []

        def caller() -> None:
            while not stop.is_set():
                started = time.monotonic()
                try:
                    tag = dt.call("nap_tool", {"ms": 30})["tag"]
                except BaseException as exc:
                    failures.append(exc)
                    return
                seen.append((started, time.monotonic(), tag))

        callers = [threading.Thread(target=caller) for _ in range(8)]
        for thread in callers:
            thread.start()
        time.sleep(1.0)
        registry.add_version("nap_tool", nap_source("v2"), {})
        switched = time.monotonic()
        time.sleep(1.5)
        stop.set()
        for thread in callers:
            thread.join(30)
        assert failures == []
        assert {tag for _, _, tag in seen} == {"v1", "v2"}
        assert all(tag == "v2" for started, _, tag in seen if started > switched + 0.05)
        assert any(tag == "v1" and ended > switched for _, ended, tag in seen)  # drained
        assert wait_for(lambda: all(
            set(s["pools"]) == {"nap_tool@2"} for s in node_stats(ray_executor)))


def test_the_node_kills_a_call_that_overruns(registry: Registry, ray_executor: Any) -> None:
    with Dyntools(registry, executor=ray_executor,
                  limits=SandboxLimits(timeout_s=0.5)) as dt:
        started = time.monotonic()
        with pytest.raises(SandboxTimeout) as caught:
            dt.call("nap_tool", {"ms": 60_000})
        # The node's timeout (its name is in the error), not the nap's end: a hang guard
        # far above the 0.5 s limit and far below the minute the nap would take.
        assert time.monotonic() - started < 30
        assert caught.value.details.get("node")
        assert dt.call("nap_tool", {"ms": 1}) == {"tag": "v1"}  # a fresh worker took over


def test_a_call_stuck_behind_busy_workers_is_given_up_at_its_deadline(
        registry: Registry, ray_cluster: str) -> None:
    """The node's timeout covers a call once a worker has it; a call stuck behind busy workers
    is given up at its own deadline, by whichever side sees it first: the node's pool (its wait
    for a worker counts against the call's time) or, when the batch carrying it reaches the node
    late, the driver at the deadline plus grace. Both are the designed answer and race by nature;
    the driver alone is pinned by the lone-call test below, with a node that never answers."""
    from dyntools.executors.ray_executor import RayExecutor

    executor = RayExecutor(ray_cluster, call_grace_s=0.3)
    try:
        with Dyntools(registry, executor=executor) as dt:
            dt.call("nap_tool", {})
            busy = [threading.Thread(target=dt.call, args=("nap_tool", {"ms": 4000}))
                    for _ in range(2)]  # both workers of the node's pool
            for thread in busy:
                thread.start()
            assert wait_for(lambda: executor.actors()[0]["in_flight"] == 2)
            time.sleep(0.2)
            with pytest.raises(SandboxTimeout, match=r"no answer from node|stayed busy past "
                               r"the call's time limit .*; nothing ran"):
                dt.call("nap_tool", {}, timeout=0.2)
            # Given up while both workers were still busy, not once one came free.
            assert executor.actors()[0]["in_flight"] >= 2
            for thread in busy:
                thread.join(30)
    finally:
        executor.close()


class _HungExchange:
    """An actor handle whose `exchange` task hangs (as a node that stopped answering)."""

    def __init__(self, handle: Any, seconds: float) -> None:
        self._handle = handle

        def never_answers(seconds: float) -> list[Any]:
            # Local, so Ray ships it by value: a node cannot import this test module.
            import time

            time.sleep(seconds)
            return []

        self._hang = ray.remote(num_cpus=0)(never_answers)
        self._seconds = seconds
        self.sent: list[Any] = []  # the hung tasks' references

    def __getattr__(self, name: str) -> Any:
        if name != "exchange":
            return getattr(self._handle, name)
        hang, seconds, sent = self._hang, self._seconds, self.sent

        class Method:
            def remote(self, *args: Any) -> Any:
                sent.append(hang.remote(seconds))
                return sent[-1]

        return Method()


def _idle_lane(executor: Any) -> Any:
    """The first actor's lane once nothing else is on it (the version's preload and the
    first call's poll may still be out), so the next call travels in one exchange task."""
    lane = executor._actors[0].lane
    assert wait_for(lambda: not (lane._queue or lane._waiting or lane._polling
                                 or lane._sending))
    return lane


def test_the_driver_gives_up_on_a_lone_call_whose_node_does_not_answer(
        registry: Registry, ray_cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone call travels in one `exchange` task: the caller stops waiting for it at the
    call's deadline plus grace, and the lane works again once the task is back."""
    from dyntools.executors.ray_executor import RayExecutor

    executor = RayExecutor(ray_cluster, call_grace_s=0.3)
    try:
        with Dyntools(registry, executor=executor) as dt:
            assert dt.call("nap_tool", {}) == {"tag": "v1"}
            lane = _idle_lane(executor)
            real = lane._handle
            hung_s = 6.0
            hung = _HungExchange(real, hung_s)
            monkeypatch.setattr(lane, "_handle", hung)
            with pytest.raises(SandboxTimeout, match="no answer from node"):
                dt.call("nap_tool", {}, timeout=0.2)
            # It gave up at the deadline plus grace (0.5 s), not when the hung task came back:
            # that task is still out (asked of Ray, not of the clock).
            ready, _ = ray.wait(hung.sent, num_returns=len(hung.sent), timeout=0)
            assert hung.sent and not ready
            monkeypatch.setattr(lane, "_handle", real)
            assert dt.call("nap_tool", {"ms": 1}, timeout=20) == {"tag": "v1"}
            assert executor.actors()[0]["in_flight"] == 0
    finally:
        executor.close()


class _Wire:
    """An actor handle that keeps, for each `exchange` task, its requests argument and
    what the task brought back (as the lane's `ray.get` sees it)."""

    def __init__(self, handle: Any, seen: list[tuple[Any, Any]]) -> None:
        self._handle = handle
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        if name != "exchange":
            return getattr(self._handle, name)
        real, seen = self._handle.exchange, self._seen

        class Method:
            def remote(self, requests: Any, *rest: Any) -> Any:
                ref = real.remote(requests, *rest)
                seen.append((requests, ray.get(ref, timeout=30)))
                return ref

        return Method()


def test_a_lone_call_travels_as_one_marshal_blob_each_way(
        registry: Registry, ray_cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its request and its reply cross Ray as bytes (Ray's own serializer costs more than
    the call's other work on the driver and the node); a call that ships the source goes
    as a list, for Ray to pickle."""
    from dyntools.executors.node_actor import unpack
    from dyntools.executors.ray_executor import RayExecutor

    executor = RayExecutor(ray_cluster)
    try:
        with Dyntools(registry, executor=executor) as dt:
            assert dt.call("nap_tool", {}) == {"tag": "v1"}
            lane = _idle_lane(executor)
            seen: list[tuple[Any, Any]] = []
            monkeypatch.setattr(lane, "_handle", _Wire(lane._handle, seen))
            assert dt.call("nap_tool", {"ms": 1}) == {"tag": "v1"}
            [(requests, replies)] = seen
            assert type(requests) is bytes and type(replies) is bytes
            [(rid, key, params, timeout, shipment, brokered)] = unpack(requests)
            assert key[:2] == ("nap_tool", 1) and params == {"ms": 1}
            assert (timeout, shipment, brokered) == (None, None, False)
            assert unpack(replies) == [(rid, ("ok", {"tag": "v1"}))]
            # A node that lost the version is sent the bytes again: that call is a list.
            with executor._lock:
                executor._actors[0].loaded.clear()
            assert dt.call("nap_tool", {"ms": 1}) == {"tag": "v1"}
            assert type(seen[1][0]) is list and seen[1][0][0][4] is not None
    finally:
        executor.close()


def test_a_full_cluster_answers_overloaded(registry: Registry, ray_cluster: str) -> None:
    from dyntools.executors.ray_executor import RayExecutor

    executor = RayExecutor(ray_cluster, max_queue=1)
    try:
        with Dyntools(registry, executor=executor) as dt:
            dt.call("nap_tool", {})
            slow = threading.Thread(target=dt.call, args=("nap_tool", {"ms": 1500}))
            slow.start()
            assert wait_for(lambda: executor.actors()[0]["in_flight"] == 1)
            with pytest.raises(Overloaded, match="queue is full"):
                dt.call("nap_tool", {})
            slow.join(30)
            assert dt.call("nap_tool", {}) == {"tag": "v1"}
    finally:
        executor.close()


def test_doctor_reports_layers_per_node(ray_executor: Any, policy: Any) -> None:
    from dyntools.executors import PoolSettings
    from dyntools.sandbox import LAYERS

    report = ray_executor.doctor(PoolSettings(policy=policy))
    assert report["executor"] == "ray" and len(report["nodes"]) == 1  # one node, two actors
    node = report["nodes"][0]
    assert node["node_id"] and set(node["layers"]) == set(LAYERS)


def test_require_layers_holds_on_every_node(registry: Registry, ray_executor: Any) -> None:
    """A layer this machine does not have is required: the node's workers refuse to start."""
    from dyntools.errors import LayerUnavailable
    from dyntools.sandbox.doctor import probe_layers

    inactive = sorted(n for n, e in probe_layers().items() if not e["active"])
    if not inactive:
        with Dyntools(registry, executor=ray_executor, require_layers=frozenset(
                probe_layers())) as dt:
            assert dt.call("nap_tool", {}) == {"tag": "v1"}
        return
    dt = Dyntools(registry, executor=ray_executor, require_layers=frozenset(inactive[:1]))
    with dt, pytest.raises(LayerUnavailable):
        dt.call("nap_tool", {})


def test_a_node_that_leaves_is_dropped(
        registry: Registry, ray_cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver looks at the cluster again after losing an actor (and every
    refresh_interval_s): actors on a node that is no longer alive are dropped, and a call with
    no live node left fails with executor_unavailable rather than hanging."""
    from dyntools.errors import ExecutorUnavailable
    from dyntools.executors.ray_executor import RayExecutor

    executor = RayExecutor(ray_cluster)
    try:
        with Dyntools(registry, executor=executor) as dt:
            assert dt.call("nap_tool", {}) == {"tag": "v1"}
            node = executor.actors()[0]["node_id"]
            real_nodes = ray.nodes
            monkeypatch.setattr(ray, "nodes", lambda: [
                {**n, "Alive": False} if n["NodeID"] == node else n for n in real_nodes()])
            with pytest.raises(ExecutorUnavailable, match="no live Ray node"):
                executor._ensure_actors(force=True)
            assert executor.actors() == [] and executor.dropped == 1
            monkeypatch.setattr(ray, "nodes", real_nodes)  # the node is back: a new actor
            executor._last_refresh = 0.0
            assert dt.call("nap_tool", {}) == {"tag": "v1"}
            assert len(executor.actors()) == 1 and executor.actors()[0]["node_id"] == node
    finally:
        executor.close()
