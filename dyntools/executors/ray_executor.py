"""The driver side of the Ray executor: tool calls run on `SandboxHost` actors, one per node
(or `actors_per_node`), each with warm pools of locked-down workers.

    Dyntools("generated_tools", executor="ray", ray_address="auto")

What stays here, on the driver: the registry, the gate, approvals, the hot-load decision
(which version takes new calls; the `Runtime`). What moves: execution. A call ships
(tool, version, sha256) and params; the first time an actor sees a version, the registry's
hash-checked bytes too, which the node checks again (hash, then its own gate) before it
compiles anything (`dyntools.executors.node_actor`).

Transport: calls travel in batches. Each actor has a lane here with two threads: a sender
that ships every call queued for the actor in one Ray actor task (`SandboxHost.submit`, not
waited for), and a poller that keeps one `SandboxHost.poll` waiting on the node and brings
back every reply that is ready, as actor tasks, or with `compiled_graphs=True` over a Ray
compiled graph (a shared-memory channel: faster on idle cores, but its waits spin, which made
it several times slower on a busy 2-core machine; bench/ray.py measures both). A Ray actor
task costs milliseconds of CPU on a small machine; batching pays it per batch rather than per
call (docs/scale.md). Requests and replies cross Ray as one marshal blob when they are plain
data (`host.pack`): Ray's own serializer costs more than the call's other work here.

Capability tools: the operator's policy, the HTTP broker, every secret and the catalog stay
here. A call with a `host` (a `dyntools.capabilities.hostcalls.HostCalls`) is sent `brokered`: each
request frame its tool sends comes back as an interim reply, is answered here by `host`
(with the call's deadline, as on the local pool) and the answer goes back to the parked
worker with `SandboxHost.resume`, until the final reply. When `host` raises (a
`CapabilityViolation`), the node is told to kill the worker and the call ends with that
error. The node sees request frames and the broker's (redacted) answers, nothing else.

Scheduling: each call goes to the actor with the fewest calls in flight from this driver;
every actor takes at most `max_queue` calls at once, and when all are full the call fails at
once with `Overloaded` (reason "overloaded"). Timeouts: the node kills a worker that overruns
(the sandbox's own timeout, which covers time spent waiting for the driver's answers), and
the driver gives up `call_grace_s` after that deadline, counted from when it sent the call,
so time spent here answering requests counts too. An actor that dies mid-call is dropped and
the call is retried once on another actor, unless the call may have acted on the world: a
capability call that made a non-GET request or a `host.call_tool` (the composed tool may act
in turn) before the actor was lost is never retried (`WorkerCrashed` says why). Nodes that
leave the cluster are dropped and new nodes get actors, checked every `refresh_interval_s`
and after any actor is lost.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dyntools import errors
from dyntools.base.log import get_logger
from dyntools.errors import (
    DyntoolsError,
    ExecutorUnavailable,
    Overloaded,
    SandboxError,
    SandboxTimeout,
    WorkerCrashed,
)
from dyntools.executors.base import Pool, PoolSettings
from dyntools.executors.node_actor import (
    ERROR,
    NEED_SOURCE,
    OK,
    POLL_WAIT_S,
    REQUEST,
    Key,
    Reply,
    Request,
    SandboxHost,
    Shipment,
    pack,
    unpack,
)

if TYPE_CHECKING:
    from dyntools.registry.records import VersionRecord
    from dyntools.sandbox.runner import HostHandler

LANE_GET_TIMEOUT_S = 120.0  # a lane's Ray task that takes longer: the actor is presumed lost
ABORT_WAIT_S = 5.0  # after a refused request: how long to wait for the node's kill to land


def acts_on_the_world(frame: Any) -> bool:
    """True unless `frame` is an HTTP GET: a non-GET request may have changed something at
    its server, and a `call_tool` runs a tool that may make one in turn (its own requests
    are not visible from here). Decided on the frame, before the host acts on it."""
    return not (isinstance(frame, dict) and frame.get("op") == "http"
                and frame.get("method") == "GET")


@dataclass(eq=False, slots=True)
class _Actor:
    handle: Any
    node_id: str
    hostname: str
    index: int
    lane: _Lane
    in_flight: int = 0
    loaded: set[Key] = field(default_factory=set)


class _Call:
    """One call's mailbox: its replies (interim request frames, then the final reply), or
    the error that lost its actor, in the order they came."""

    __slots__ = ("_box", "give_up", "request")

    def __init__(self, request: Request, give_up: float) -> None:
        self.request = request
        self.give_up = give_up  # when the driver stops waiting (monotonic)
        self._box: queue.SimpleQueue[tuple[Reply | None, BaseException | None]] = \
            queue.SimpleQueue()

    def deliver(self, reply: Reply) -> None:
        self._box.put((reply, None))

    def lose(self, exc: BaseException) -> None:
        self._box.put((None, exc))

    def next(self, timeout: float) -> tuple[Reply | None, BaseException | None] | None:
        """The next reply or loss; None when nothing came within `timeout`."""
        try:
            return self._box.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None


@dataclass(slots=True)
class _Effects:
    """What a call's tool asked the driver for, across its attempts."""

    requests: int = 0
    acted: bool = False  # a request that may have acted on the world (never retried)


class _Lane:
    """The batched path to one actor: a sender and a poller thread (see the module doc)."""

    def __init__(self, ray: Any, handle: Any, name: str, compiled: bool) -> None:
        self._ray = ray
        self._handle = handle
        # One lock, two conditions: each state change wakes only the thread it concerns, so a
        # lone call (sent and collected by its caller) wakes neither.
        self._lock = threading.Lock()
        self._to_send = threading.Condition(self._lock)  # the sender: calls are queued
        self._to_poll = threading.Condition(self._lock)  # the poller: calls wait, none polls
        self._queue: list[_Call] = []
        self._waiting: dict[int, _Call] = {}
        self._lost: BaseException | None = None
        self._closed = False
        self._sending = 0  # sends under way (the sender's or a caller's)
        self._polling = False  # a poll under way: the poller's, or a lone caller's exchange
        self._dag: Any = _compile_poll(handle) if compiled else None
        self.transport = "compiled graph" if self._dag is not None else "actor tasks"
        self._threads = [threading.Thread(target=loop, name=f"dyntools-ray-{role}-{name}",
                                          daemon=True)
                         for role, loop in (("send", self._send_loop),
                                            ("poll", self._poll_loop))]
        for thread in self._threads:
            thread.start()

    def submit(self, call: _Call) -> None:
        """Queue `call` for the sender; when nothing is being sent, send it from this thread
        at once (one thread hand-off less for a lone call; under load, calls that arrive
        while a send is under way queue up and leave together)."""
        with self._lock:
            if self._lost is not None or self._closed:
                call.lose(self._lost or ExecutorUnavailable("the actor's lane is closed"))
                return
            idle = not self._queue and self._sending == 0
            alone = idle and not self._waiting and not self._polling
            if idle:
                self._sending += 1
                self._waiting[call.request[0]] = call
                if alone:
                    self._polling = True  # this thread polls: the poller stands by
                else:
                    self._wake_poller()
            else:
                self._queue.append(call)
                self._to_send.notify()
        if alone:
            self._exchange(call)
        elif idle:
            self._send([call])

    def _exchange(self, call: _Call) -> None:
        """A call alone on the lane: one task sends it and brings its reply back. When the
        call's time is up first (a node that does not answer), the caller goes and a helper
        thread waits for the task, which may also bring other calls' replies."""
        handed_off = False
        try:
            try:
                ref = self._handle.exchange.remote(pack([call.request]))  # waits POLL_WAIT_S
            except Exception as exc:  # the request could not be serialized
                self._fail_calls([call], exc)
                return
            finally:
                with self._lock:
                    self._sending -= 1
            if not self._collect(ref, POLL_WAIT_S, give_up=call.give_up):
                handed_off = True
                threading.Thread(target=self._finish_exchange, args=(ref,), daemon=True,
                                 name="dyntools-ray-exchange").start()
        finally:
            if not handed_off:
                self._stop_polling()

    def _finish_exchange(self, ref: Any) -> None:
        try:
            self._collect(ref, POLL_WAIT_S)
        finally:
            self._stop_polling()

    def _stop_polling(self) -> None:
        with self._lock:
            self._polling = False
            self._wake_poller()

    def _wake_poller(self) -> None:
        """Under the lock: wake the poller if calls wait and no poll is under way."""
        if self._waiting and not self._polling:
            self._to_poll.notify()

    def _send(self, batch: list[_Call]) -> None:
        """Ship `batch` (already counted in `_sending` and registered as waiting)."""
        try:
            # Not waited for: replies come back through the poller, and an actor that
            # died is noticed there.
            self._handle.submit.remote(pack([call.request for call in batch]))
        except Exception as exc:  # the requests could not be serialized
            self._fail_calls(batch, exc)
        finally:
            with self._lock:
                self._sending -= 1

    def resume(self, call: _Call, answer: dict[str, Any] | None) -> None:
        """Send the answer to `call`'s request frame (None: kill the worker). Not waited
        for: the next reply comes back through the poller, and a dead actor is noticed
        there."""
        self._handle.resume.remote(call.request[0], answer)

    def abandon(self, call: _Call) -> None:
        """The caller gave up waiting: a late reply is dropped."""
        with self._lock:
            self._waiting.pop(call.request[0], None)

    def close(self, wait: float = 0.0) -> None:
        """Stop; with `wait`, give the poller that long to finish its last poll (and tear
        its compiled graph down while the actor is still alive)."""
        with self._lock:
            self._closed = True
            self._to_send.notify_all()
            self._to_poll.notify_all()
        if wait > 0:
            for thread in self._threads:
                if thread is not threading.current_thread():
                    thread.join(wait)

    def _send_loop(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closed and self._lost is None:
                    self._to_send.wait()
                if self._closed or self._lost is not None:
                    return
                batch, self._queue = self._queue, []
                for call in batch:
                    self._waiting[call.request[0]] = call
                self._sending += 1
                self._wake_poller()
            self._send(batch)

    def _poll_loop(self) -> None:
        try:
            while True:
                with self._lock:
                    while ((not self._waiting or self._polling) and not self._closed
                           and self._lost is None):
                        self._to_poll.wait()
                    if self._closed or self._lost is not None:
                        return
                    self._polling = True
                try:
                    self._poll()
                finally:
                    with self._lock:
                        self._polling = False
        finally:
            if self._dag is not None:
                with contextlib.suppress(Exception):
                    self._dag.teardown()

    def _poll(self) -> None:
        try:
            if self._dag is not None:
                ref = self._dag.execute(POLL_WAIT_S)
            else:
                ref = self._handle.poll.remote(POLL_WAIT_S, True)
        except Exception as exc:
            self._fail(exc)
            return
        self._collect(ref, POLL_WAIT_S)

    def _collect(self, ref: Any, wait_s: float, give_up: float | None = None) -> bool:
        """Route the replies `ref` brings back (an actor that fails fails every call).
        False, with nothing routed, when `give_up` (a monotonic time) came first."""
        ray = self._ray
        budget = wait_s + LANE_GET_TIMEOUT_S
        if give_up is not None:
            budget = min(budget, max(0.0, give_up - time.monotonic()))
        try:
            replies = unpack(ray.get(ref, timeout=budget))
        except Exception as exc:  # the actor died, or stopped answering
            if give_up is not None and isinstance(exc, ray.exceptions.GetTimeoutError):
                return False
            self._fail(exc)
            return True
        with self._lock:
            # A request frame is interim: its call stays waiting for the final reply.
            calls = [(self._waiting.get(rid) if reply[0] == REQUEST
                      else self._waiting.pop(rid, None), reply) for rid, reply in replies]
        for call, reply in calls:
            if call is not None:
                call.deliver(reply)
        return True

    def _fail_calls(self, calls: list[_Call], exc: BaseException) -> None:
        with self._lock:
            for call in calls:
                self._waiting.pop(call.request[0], None)
        for call in calls:
            call.deliver((ERROR, "UsageError", f"the call cannot be sent: {exc}", {}))

    def _fail(self, exc: BaseException) -> None:
        with self._lock:
            self._lost = exc
            calls = [*self._queue, *self._waiting.values()]
            self._queue, self._waiting = [], {}
            self._to_send.notify_all()
            self._to_poll.notify_all()
        for call in calls:
            call.lose(exc)


def _compile_poll(handle: Any) -> Any:
    """A Ray compiled graph for `handle.poll`: replies travel over a shared-memory channel
    (about 0.5 ms a round trip here, against 2-3 ms for an actor task). None when Ray cannot
    compile it; the lane then polls with actor tasks."""
    try:
        from ray.dag import InputNode

        with InputNode() as wait_s:
            dag = handle.poll.bind(wait_s)
        return dag.experimental_compile()
    except Exception as exc:
        get_logger("executor").warning("executor.compiled_graph_unavailable", error=repr(exc))
        return None


class _ActorLost(Exception):
    def __init__(self, actor: _Actor, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.actor = actor
        self.cause = cause


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ExecutorUnavailable(
            "the ray executor needs Ray: pip install 'dyntools[ray]'") from exc
    return ray


class RayExecutor:
    """Thread-safe. `close()` ends the actors it started (and Ray, if it started it)."""

    name = "ray"
    adopts_local_pools = False

    def __init__(
        self,
        address: str | None = None,
        *,
        actors_per_node: int = 1,
        max_queue: int = 256,
        call_grace_s: float = 10.0,
        startup_timeout_s: float = 120.0,
        refresh_interval_s: float = 10.0,
        init_options: dict[str, Any] | None = None,
        compiled_graphs: bool = False,
        connect_timeout_s: float | None = None,
    ) -> None:
        from dyntools.executors.ray_connect import connect_timeout

        if actors_per_node < 1:
            raise ValueError("actors_per_node must be at least 1")
        if max_queue < 1:
            raise ValueError("max_queue must be at least 1")
        self.address = address
        # How long a connect may take (DYNTOOLS_RAY_CONNECT_TIMEOUT, default 10 s): checked
        # now, so a bad value is a usage error before anything starts (ray_connect.py).
        self.connect_timeout_s = connect_timeout(connect_timeout_s)
        self.actors_per_node = actors_per_node
        self.max_queue = max_queue
        self.call_grace_s = call_grace_s
        self.startup_timeout_s = startup_timeout_s
        self.refresh_interval_s = refresh_interval_s
        self.compiled_graphs = compiled_graphs
        self._init_options = dict(init_options or {})
        self._ray: Any = None
        self._started_ray = False
        self._lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._actors: list[_Actor] = []
        self._counter = itertools.count()
        self._call_ids = itertools.count(1)
        self._next = 0
        self._last_refresh = 0.0
        self._closed = False
        self.retries = 0
        self.dropped = 0

    # ------------------------------------------------------------------------- executor

    def pool(self, record: VersionRecord, source: str, settings: PoolSettings) -> Pool:
        return RayPool(self, record, source, settings)

    def doctor(self, settings: PoolSettings) -> dict[str, Any]:
        """Each node's layer report, probed by that node's actor."""
        ray = self._connect()
        self._ensure_actors()
        seen: dict[str, _Actor] = {}
        with self._lock:
            for actor in self._actors:
                seen.setdefault(actor.node_id, actor)
        refs = [actor.handle.doctor.remote(settings) for actor in seen.values()]
        reports = ray.get(refs, timeout=self.startup_timeout_s)
        return {"executor": self.name, "address": self.address,
                "nodes": sorted(reports, key=lambda r: str(r.get("node_id")))}

    def close(self) -> None:
        with self._lock:
            self._closed = True
            actors, self._actors = self._actors, []
        ray = self._ray
        if ray is None:
            return
        for actor in actors:
            actor.lane.close(wait=POLL_WAIT_S + 2.0)
        for actor in actors:
            with contextlib.suppress(Exception):
                ray.kill(actor.handle, no_restart=True)
        if self._started_ray:
            with contextlib.suppress(Exception):
                ray.shutdown()

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --------------------------------------------------------------------------- actors

    def actors(self) -> list[dict[str, Any]]:
        """The live actors: node, calls in flight from this driver, versions shipped."""
        with self._lock:
            return [{"index": a.index, "node_id": a.node_id, "hostname": a.hostname,
                     "in_flight": a.in_flight, "loaded": sorted(a.loaded),
                     "transport": a.lane.transport}
                    for a in self._actors]

    def handles(self) -> list[Any]:
        """The live actors' Ray handles (tests kill one to show the retry)."""
        with self._lock:
            return [a.handle for a in self._actors]

    def _connect(self) -> Any:
        with self._lock:
            if self._ray is not None:
                return self._ray
            ray = _import_ray()
            if not ray.is_initialized():
                from dyntools.executors.ray_connect import address_for, connect

                options: dict[str, Any] = {
                    "include_dashboard": False,
                    "logging_level": logging.WARNING,
                    "log_to_driver": False,
                    **self._init_options,
                }
                # None is "auto": a running cluster, never one started unasked ("local").
                connect(ray, address_for(self.address), options, self.connect_timeout_s)
                self._started_ray = True
            self._ray = ray
            return ray

    def _ensure_actors(self, force: bool = False) -> None:
        """Drop actors on nodes that left; start actors on nodes that have none."""
        ray = self._connect()
        if not force and self._actors and (
                time.monotonic() - self._last_refresh < self.refresh_interval_s):
            return
        with self._refresh_lock:
            if not force and self._actors and (
                    time.monotonic() - self._last_refresh < self.refresh_interval_s):
                return
            alive = {n["NodeID"] for n in ray.nodes() if n.get("Alive")}
            with self._lock:
                if self._closed:
                    raise ExecutorUnavailable("the ray executor is closed")
                gone = [a for a in self._actors if a.node_id not in alive]
                self._actors = [a for a in self._actors if a.node_id in alive]
                per_node: dict[str, int] = {}
                for actor in self._actors:
                    per_node[actor.node_id] = per_node.get(actor.node_id, 0) + 1
            for actor in gone:
                self.dropped += 1
                get_logger("executor").warning("executor.node_dropped", node=actor.node_id,
                                               actor=actor.index)
            wanted = [node for node in sorted(alive)
                      for _ in range(self.actors_per_node - per_node.get(node, 0))]
            started = self._start_actors(ray, wanted) if wanted else []
            with self._lock:
                self._actors.extend(started)
                self._last_refresh = time.monotonic()
                if not self._actors:
                    raise ExecutorUnavailable("no live Ray node can host a SandboxHost actor",
                                              address=self.address)

    def _start_actors(self, ray: Any, nodes: list[str]) -> list[_Actor]:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        remote = ray.remote(SandboxHost)
        handles = [
            remote.options(
                num_cpus=0,
                max_concurrency=self.max_queue + 8,  # room for retire/stats beside calls
                max_restarts=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False),
            ).remote(self.max_queue)
            for node in nodes
        ]
        started = []
        for handle, node in zip(handles, nodes, strict=True):
            try:
                info = ray.get(handle.node_info.remote(), timeout=self.startup_timeout_s)
            except Exception as exc:  # a node that cannot host one is skipped this round
                get_logger("executor").warning("executor.actor_start_failed", node=node,
                                               error=repr(exc))
                with contextlib.suppress(Exception):
                    ray.kill(handle, no_restart=True)
                continue
            index = next(self._counter)
            started.append(_Actor(handle, info.get("node_id") or node,
                                  str(info.get("hostname", "")), index,
                                  _Lane(ray, handle, str(index), self.compiled_graphs)))
        return started

    def _drop(self, actor: _Actor) -> None:
        actor.lane.close()
        with self._lock:
            if actor in self._actors:
                self._actors.remove(actor)
                self.dropped += 1
            self._last_refresh = 0.0  # look at the cluster again before the next call
        get_logger("executor").warning("executor.actor_dropped", node=actor.node_id,
                                       actor=actor.index)

    def _pick(self, exclude: set[int]) -> _Actor:
        """The least-loaded actor with room in its queue (ties: round robin)."""
        self._ensure_actors()
        with self._lock:
            candidates = [a for a in self._actors if a.index not in exclude]
            if not candidates:
                raise ExecutorUnavailable("no live SandboxHost actor to take the call")
            count = len(candidates)
            start = self._next % count
            self._next += 1
            best: _Actor | None = None
            for offset in range(count):
                actor = candidates[(start + offset) % count]
                if actor.in_flight < self.max_queue and (
                        best is None or actor.in_flight < best.in_flight):
                    best = actor
            if best is None:
                raise Overloaded(
                    f"every SandboxHost actor's queue is full ({count} actor(s) x "
                    f"{self.max_queue} calls); retry later or add nodes",
                    actors=count, max_queue=self.max_queue)
            best.in_flight += 1
            return best

    # ---------------------------------------------------------------------------- calls

    def preload(self, key: Key, shipment: Shipment) -> None:
        """Ship and warm `key` on every actor now; raises the first node's error."""
        ray = self._connect()
        self._ensure_actors()
        with self._lock:
            actors = list(self._actors)
        refs = [actor.handle.load.remote(key, shipment) for actor in actors]
        first: DyntoolsError | None = None
        for actor, ref in zip(actors, refs, strict=True):
            try:
                reply = ray.get(ref, timeout=self.startup_timeout_s)
            except Exception as exc:
                if not self._closed:  # closing ends the actors under a preload: no news
                    get_logger("executor").warning("executor.preload_failed",
                                                   node=actor.node_id, error=repr(exc))
                continue
            if reply[0] == OK:
                with self._lock:
                    actor.loaded.add(key)
            elif first is None:
                first = _error_from(reply, actor)
        if first is not None:
            raise first

    def dispatch(self, key: Key, shipment: Shipment, params: dict[str, Any],
                 timeout: float | None, host: HostHandler | None = None) -> dict[str, Any]:
        """Run one call on the least-loaded actor, `host` answering its capability
        requests; retried once elsewhere if the actor dies, unless the call may have acted
        on the world by then (see `acts_on_the_world`)."""
        ray = self._connect()
        tried: set[int] = set()
        effects = _Effects()
        while True:
            actor = self._pick(tried)
            tried.add(actor.index)
            try:
                return self._call_on(ray, actor, key, shipment, params, timeout, host, effects)
            except _ActorLost as lost:
                self._drop(lost.actor)
                acted = effects.acted or bool(getattr(host, "non_get", False))
                if not acted and len(tried) == 1:
                    self.retries += 1
                    get_logger("executor").warning(
                        "executor.call_retried", tool=key[0], version=key[1],
                        node=actor.node_id, host_requests=effects.requests,
                        error=repr(lost.cause))
                    continue
                why = ("it was already retried once" if len(tried) > 1 else
                       "the tool had made a non-GET request or called a tool through the "
                       "host, which may have acted on the world, so it is not retried")
                raise WorkerCrashed(
                    f"the SandboxHost actor on node {actor.node_id[:12]} died during the "
                    f"call; {why}", tool=key[0], version=key[1], node=actor.node_id,
                    retried=len(tried) > 1, side_effects=acted) from lost.cause

    def _call_on(self, ray: Any, actor: _Actor, key: Key, shipment: Shipment,
                 params: dict[str, Any], timeout: float | None, host: HostHandler | None,
                 effects: _Effects) -> dict[str, Any]:
        limit = timeout if timeout is not None else shipment.settings.limits.timeout_s
        try:
            with self._lock:
                ship = key not in actor.loaded
            reply = self._roundtrip(actor, key, params, timeout, limit,
                                    shipment if ship else None, host, effects)
            if reply[0] == NEED_SOURCE:  # the node retired it, or restarted: ship again
                ship = True
                reply = self._roundtrip(actor, key, params, timeout, limit, shipment, host,
                                        effects)
        finally:
            with self._lock:
                actor.in_flight -= 1
        if reply[0] == OK:
            if ship:
                with self._lock:
                    actor.loaded.add(key)
            result: dict[str, Any] = reply[1]
            return result
        error = _error_from(reply, actor)
        if ship and not isinstance(error, errors.SourceRefused):
            with self._lock:  # the pool exists there: a tool error is not a load error
                actor.loaded.add(key)
        raise error

    def _roundtrip(self, actor: _Actor, key: Key, params: dict[str, Any],
                   timeout: float | None, limit: float, shipment: Shipment | None,
                   host: HostHandler | None, effects: _Effects) -> Reply:
        """Send one call and wait for its final reply, answering its request frames."""
        deadline = time.monotonic() + limit  # the call's own, as `host` sees it
        give_up = deadline + self.call_grace_s
        call = _Call((next(self._call_ids), key, params, timeout, shipment, host is not None),
                     give_up)
        lane = actor.lane
        lane.submit(call)
        while True:
            got = call.next(give_up - time.monotonic())
            if got is None:
                lane.abandon(call)
                if host is not None:  # a parked worker is killed now, not at its deadline
                    with contextlib.suppress(Exception):
                        lane.resume(call, None)
                wait = limit + self.call_grace_s
                raise SandboxTimeout(
                    f"no answer from node {actor.node_id[:12]} within {wait:.1f} s (the "
                    f"call's {limit:.1f} s plus {self.call_grace_s:.1f} s of grace)",
                    tool=key[0], version=key[1], node=actor.node_id, timeout_s=wait)
            reply, lost = got
            if lost is not None:
                raise _ActorLost(actor, lost)
            assert reply is not None
            if reply[0] != REQUEST:
                return reply
            self._answer(lane, call, reply[1], host, deadline, give_up, effects)

    def _answer(self, lane: _Lane, call: _Call, frame: Any, host: HostHandler | None,
                deadline: float, give_up: float, effects: _Effects) -> None:
        """Answer one request frame with `host`; when `host` raises, have the node kill the
        worker and end the call with that error."""
        effects.requests += 1
        if acts_on_the_world(frame):
            effects.acted = True  # before the host acts: it may act and then fail
        try:
            if host is None:  # the node asked for a call not sent brokered
                raise SandboxError("the node sent a capability request for a call that "
                                   "grants none; the worker was killed")
            answer = host(frame, deadline)
        except BaseException:
            with contextlib.suppress(Exception):
                lane.resume(call, None)
            # The call ends with this error either way; waiting a moment for the node's
            # reply means its worker is dead before the caller moves on.
            call.next(min(ABORT_WAIT_S, give_up - time.monotonic()))
            lane.abandon(call)
            raise
        try:
            lane.resume(call, answer)
        except Exception as exc:  # the answer cannot be serialized
            with contextlib.suppress(Exception):
                lane.resume(call, None)
            lane.abandon(call)
            raise WorkerCrashed(f"the answer to a capability request cannot be sent to the "
                                f"node: {type(exc).__name__}") from exc

    def retire(self, name: str, version: int) -> None:
        """Every actor closes `name` v`version`'s pool once its calls there finish."""
        ray = self._ray
        if ray is None:
            return
        with self._lock:
            actors = list(self._actors)
            for actor in actors:
                actor.loaded = {k for k in actor.loaded if (k[0], k[1]) != (name, version)}
        for actor in actors:
            with contextlib.suppress(Exception):
                actor.handle.retire.remote(name, version)


def _error_from(reply: Reply, actor: _Actor) -> DyntoolsError:
    if reply[0] != ERROR:
        return WorkerCrashed(f"unexpected reply from node {actor.node_id[:12]}: {reply[0]!r}")
    _, type_name, message, details = reply
    cls = getattr(errors, str(type_name), None)
    if not (isinstance(cls, type) and issubclass(cls, DyntoolsError)) or cls is errors.GateRejected:
        cls = SandboxError
    details = {**dict(details), "node": actor.node_id}
    try:
        return cls(str(message), **details)
    except TypeError:
        return SandboxError(str(message), **details)


class RayPool:
    """One tool version on the cluster: what the runtime sees as that version's pool."""

    def __init__(self, executor: RayExecutor, record: VersionRecord, source: str,
                 settings: PoolSettings) -> None:
        self.executor = executor
        self.record = record
        self.key: Key = (record.name, record.version, record.sha256)
        self.shipment = Shipment(source.encode("utf-8"), settings, record.module_name,
                                 str(record.path))
        self._closed = False

    def start(self) -> None:
        """Ship and warm this version on every node now (else the first call does)."""
        self.executor.preload(self.key, self.shipment)

    def call(self, params: dict[str, Any], timeout: float | None = None, *,
             host: HostHandler | None = None) -> dict[str, Any]:
        """`host` answers the call's capability requests here, on the driver."""
        if self._closed:
            raise errors.UsageError("the pool is closed")
        return self.executor.dispatch(self.key, self.shipment, params, timeout, host)

    def close(self, wait: bool = True) -> None:
        """New calls are refused; every node retires the version when its calls finish."""
        if self._closed:
            return
        self._closed = True
        self.executor.retire(self.record.name, self.record.version)
