"""The node side of the Ray executor: one long-lived `SandboxHost` actor per node.

It keeps warm pools of the same locked-down workers the local executor uses (every OS layer
this node can apply; `require_layers` is enforced by each worker start, so on every node).
It trusts bytes, not the driver's word: a call names (tool, version, sha256); the first time a
node sees that key the driver ships the gated bytes too, and the node

1. hashes the bytes and refuses them unless the digest is the registry's record (the key's);
2. runs its own gate on them with the policy it was sent, and refuses what the gate rejects;

and only then builds a pool (which transforms and compiles inside the workers). A pool is
keyed by the digest, so bytes for another digest can never be served under this key.

Calls reach the actor in batches (`submit`: one Ray task carries every call the driver has
queued for this actor) and replies go back in batches (`poll`: every reply that is ready),
so the cost of a Ray task (milliseconds on a small machine) is paid per batch, not per call.
A batch of plain data travels as one marshal blob (`pack`), which Ray carries faster than it
serializes a list of tuples; the node answers a packed batch packed.
Each call runs in a thread of its own here, so a slow call never holds up the others.

Capability calls (issue 11) are continuations. The operator's policy, the HTTP broker and
every secret stay on the driver, so a node cannot answer a tool's `host.http_get` itself: a
call sent `brokered` runs with a host handler that, on each request frame, parks the call
(the worker waits on its pipe) and hands the frame to the driver as that call's interim
reply, `(REQUEST, frame)`, through `poll`; the driver answers it with `resume(id, answer)`
and the worker goes on, until the final reply. `resume(id, None)` (the driver refused the
request) and a driver that does not answer before the call's deadline both kill the worker.

A bounded number of calls may be in the actor at once; past it a call is answered
`overloaded` at once. A call's timeout is enforced here by the pool (the worker is killed).
Replies are plain tuples (see `OK`, `ERROR`, `NEED_SOURCE`) so that an error crosses the
cluster as data, never as a pickled exception object.

This module imports without Ray: the class is plain Python, wrapped with `ray.remote` by
the driver (`dyntools.executors.ray_executor`).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import platform
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from dyntools.errors import (
    CapabilityViolation,
    DyntoolsError,
    Overloaded,
    SandboxTimeout,
    SourceRefused,
    UsageError,
    WorkerCrashed,
)
from dyntools.executors.base import PoolSettings

OK, ERROR, NEED_SOURCE = "ok", "error", "need_source"
REQUEST = "request"  # an interim reply: (REQUEST, frame), the call waits for `resume`
POLL_WAIT_S = 0.5  # how long a poll (or an exchange, by default) waits for a finished call
Key = tuple[str, int, str]  # (tool name, version, sha256 of the gated bytes)
Reply = tuple[Any, ...]
# (request id, key, params, timeout, shipment or None, brokered): one call in a `submit`
# batch; `brokered` calls may send capability requests to the driver (see the module doc).
Request = tuple[int, Key, dict[str, Any], float | None, "Shipment | None", bool]


_PLAIN = frozenset({str, int, float, bool, type(None), bytes})


def _plain(value: Any) -> bool:
    """True when `value` holds only exact dicts, lists, tuples, str, int, float, bool, None
    and bytes, each container once: what marshal gives back exactly as it was (it would turn
    other buffers, a bytearray for one, into bytes, and it refuses subclasses). A container
    met twice (shared, or a cycle) is left to Ray's pickler, which keeps it as it is."""
    stack = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict or kind is list or kind is tuple:
            if id(item) in seen:
                return False
            seen.add(id(item))
            if kind is dict:
                for key in item:
                    if type(key) not in _PLAIN:
                        return False
                stack.extend(item.values())
            else:
                stack.extend(item)
        elif kind not in _PLAIN:
            return False
    return True


def pack(items: list[Any]) -> bytes | list[Any]:
    """A Ray task's list of requests or replies as one marshal blob, or the list as it is
    when it holds anything else than plain data (a `Shipment`, an error detail of another
    type): Ray then pickles it as before. Ray's general object path costs about 0.1 ms a
    task on each side on the 2-core machine bench/ray.py runs on, where bytes go through
    much faster (docs/scale.md, "Transport"). Params are plain data already (the worker
    gets them by marshal)."""
    if not _plain(items):
        return items
    try:
        return marshal.dumps(items)
    except ValueError:  # nested too deep for marshal
        return items


def unpack(value: Any) -> Any:
    """What `pack` made, as the list it came from."""
    return marshal.loads(value) if type(value) is bytes else value


@dataclass(frozen=True, slots=True)
class Shipment:
    """What a node needs the first time it runs a version: the gated bytes and how to run
    them. `settings.policy` is the driver's policy, which the node's own gate applies."""

    source: bytes
    settings: PoolSettings
    module_name: str
    path: str


class _Parked:
    """A brokered call waiting for the driver's answer to one request frame."""

    __slots__ = ("answer", "answered")

    def __init__(self) -> None:
        self.answered = threading.Event()
        self.answer: dict[str, Any] | None = None


def error_reply(exc: BaseException) -> Reply:
    if isinstance(exc, DyntoolsError):
        return (ERROR, type(exc).__name__, exc.message, dict(exc.details))
    return (ERROR, WorkerCrashed.__name__, f"the node failed: {type(exc).__name__}: {exc}", {})


class SandboxHost:
    """Thread-safe (a threaded Ray actor calls it from many threads at once)."""

    def __init__(self, max_queue: int = 256) -> None:
        if max_queue < 1:
            raise ValueError("max_queue must be at least 1")
        self.max_queue = max_queue
        self._lock = threading.Lock()
        self._pools: dict[Key, Any] = {}  # Key -> WorkerPool
        self._loading: dict[Key, threading.Lock] = {}
        self._in_flight = 0
        self._counts = {"calls": 0, "overloaded": 0, "refused": 0, "loaded": 0, "retired": 0,
                        "batches": 0, "host_requests": 0, "host_refusals": 0}
        self._done: queue.SimpleQueue[tuple[int, Reply]] = queue.SimpleQueue()
        self._threads = ThreadPoolExecutor(max_queue, thread_name_prefix="dyntools-host")
        # Per version, as many threads as its pool has workers: calls wait in a FIFO queue
        # rather than as threads all woken at once each time a worker comes free.
        self._runners: dict[Key, ThreadPoolExecutor] = {}
        self._inline: dict[Key, int] = {}  # calls run in a submit's own thread, per version
        self._queued: dict[Key, int] = {}  # calls waiting for a runner thread, per version
        self._parked: dict[int, _Parked] = {}  # brokered calls waiting for the driver

    # ---------------------------------------------------------------------------- queries

    def node_info(self) -> dict[str, Any]:
        node_id = ""
        try:
            import ray

            node_id = ray.get_runtime_context().get_node_id()
        except Exception:  # plain Python (tests without a cluster)
            node_id = ""
        return {"node_id": node_id, "hostname": platform.node(), "pid": os.getpid()}

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "in_flight": self._in_flight,
                "parked": len(self._parked),
                "max_queue": self.max_queue,
                "pools": {f"{k[0]}@{k[1]}": p.stats for k, p in self._pools.items()},
                **self._counts,
            }

    def doctor(self, settings: PoolSettings) -> dict[str, Any]:
        """This node's sandbox layer report (a real probe worker), with the node's identity."""
        from dyntools.sandbox.doctor import doctor_report

        try:
            report = doctor_report(settings.policy)
        except DyntoolsError as exc:
            return {**self.node_info(), "error": exc.as_dict()}
        return {**self.node_info(), **report}

    # ------------------------------------------------------------------------------ calls

    def load(self, key: Key, shipment: Shipment) -> Reply:
        """Check and warm up `key`'s pool; (OK, layer report) or an error reply."""
        try:
            pool = self._pool(key, shipment)
            pool.start()
            return (OK, dict(pool.layers))
        except Exception as exc:
            return error_reply(exc)

    def call(self, key: Key, params: dict[str, Any], timeout: float | None,
             shipment: Shipment | None = None) -> Reply:
        """Run one call; (OK, result), (NEED_SOURCE,) when this node has no pool for `key`
        and no bytes came with the call, or an error reply."""
        refusal = self._admit()
        if refusal is not None:
            return refusal
        return self._run(key, params, timeout, shipment)

    def submit(self, requests: list[Request] | bytes) -> int:
        """Start `requests` (a list, or the driver's `pack` of one); their replies come back
        through `poll`. The number started."""
        batch: list[Request] = unpack(requests)
        with self._lock:
            self._counts["batches"] += 1
        started = 0
        inline: tuple[Any, ...] | None = None
        for index, (rid, key, params, timeout, shipment, brokered) in enumerate(batch):
            refusal = self._admit()
            if refusal is not None:
                self._done.put((rid, refusal))
                continue
            args = (rid, key, params, timeout, shipment, brokered)
            started += 1
            # The last one runs in this thread (one hand-off less), unless it is brokered:
            # a parked call must never hold up the task that carries it (see `exchange`).
            if index == len(batch) - 1 and not brokered and self._claim_worker(key):
                inline = args
                continue
            with self._lock:
                self._queued[key] = self._queued.get(key, 0) + 1
            try:
                self._runner(key, shipment).submit(self._finish_queued, *args)
            except RuntimeError:  # that runner was just retired
                self._threads.submit(self._finish_queued, *args)
        if inline is not None:
            try:
                self._finish(*inline)
            finally:
                with self._lock:
                    self._inline[inline[1]] -= 1
        return started

    def _claim_worker(self, key: Key) -> bool:
        """True (and counted) when `key`'s pool has a worker no queued call is waiting for."""
        with self._lock:
            pool = self._pools.get(key)
            if pool is None or self._queued.get(key, 0) > 0:
                return False
            stats = pool.stats
            if stats["busy"] + self._inline.get(key, 0) >= pool.size:
                return False
            self._inline[key] = self._inline.get(key, 0) + 1
            return True

    def exchange(self, requests: list[Request] | bytes,
                 wait_s: float = POLL_WAIT_S) -> list[tuple[int, Reply]] | bytes:
        """`submit` and `poll` in one task, for a call that finds the driver's lane idle: a
        lone call with a free worker runs in this very thread and its reply comes straight
        back (with any others that are ready). A brokered call runs in a thread of its own and
        this task brings back whatever is ready first, its first request frame included.
        Requests sent packed (`pack`) are answered packed. The driver leaves `wait_s` out:
        each argument of a Ray task costs its serializer's time on both sides."""
        if type(requests) is bytes:
            return pack(self._exchange(unpack(requests), wait_s))
        assert isinstance(requests, list)
        return self._exchange(requests, wait_s)

    def _exchange(self, requests: list[Request], wait_s: float) -> list[tuple[int, Reply]]:
        if len(requests) == 1 and not requests[0][5] and self._claim_worker(requests[0][1]):
            rid, key, params, timeout, shipment, _ = requests[0]
            with self._lock:
                self._counts["batches"] += 1
            refusal = self._admit()
            try:
                reply = refusal if refusal is not None else self._run(key, params, timeout,
                                                                      shipment)
            except BaseException as exc:
                reply = error_reply(exc)
            finally:
                with self._lock:
                    self._inline[key] -= 1
            return [(rid, reply), *self._poll(0.0)]
        self.submit(requests)
        return self._poll(wait_s)

    def poll(self, wait_s: float, packed: bool = False) -> list[tuple[int, Reply]] | bytes:
        """Every (request id, reply) finished since the last poll, waiting up to `wait_s` for
        one when none has; with `packed`, as `pack` makes them. One driver talks to one
        actor: the replies are all its own."""
        ready = self._poll(wait_s)
        return pack(ready) if packed else ready

    def _poll(self, wait_s: float) -> list[tuple[int, Reply]]:
        ready: list[tuple[int, Reply]] = []
        try:
            ready.append(self._done.get(timeout=wait_s) if wait_s > 0
                         else self._done.get_nowait())
        except queue.Empty:
            return ready
        while True:
            try:
                ready.append(self._done.get_nowait())
            except queue.Empty:
                return ready

    def resume(self, rid: int, answer: dict[str, Any] | None) -> bool:
        """The driver's answer to call `rid`'s request frame; None kills the worker (the
        driver refused the request). False when the call no longer waits (it timed out)."""
        with self._lock:
            parked = self._parked.pop(rid, None)
            if parked is None:
                return False
            if answer is None:
                self._counts["host_refusals"] += 1
        parked.answer = answer if isinstance(answer, dict) else None
        parked.answered.set()
        return True

    def _host_for(self, rid: int) -> Any:
        """The host handler of brokered call `rid` (a `HostHandler`, see the module doc)."""

        def ask(request: Any, deadline: float) -> dict[str, Any]:
            parked = _Parked()
            with self._lock:
                self._parked[rid] = parked
                self._counts["host_requests"] += 1
            self._done.put((rid, (REQUEST, request)))
            parked.answered.wait(max(0.0, deadline - time.monotonic()))
            with self._lock:
                self._parked.pop(rid, None)
            if not parked.answered.is_set():
                raise SandboxTimeout("the driver did not answer the tool's capability request "
                                     "within the call's time limit; the worker was killed")
            if parked.answer is None:
                raise CapabilityViolation("the driver refused the tool's capability request; "
                                          "the worker was killed")
            return parked.answer

        return ask

    def _finish_queued(self, rid: int, key: Key, params: dict[str, Any],
                       timeout: float | None, shipment: Shipment | None,
                       brokered: bool) -> None:
        with self._lock:
            self._queued[key] -= 1
        self._finish(rid, key, params, timeout, shipment, brokered)

    def _finish(self, rid: int, key: Key, params: dict[str, Any], timeout: float | None,
                shipment: Shipment | None, brokered: bool) -> None:
        try:
            reply = self._run(key, params, timeout, shipment,
                              self._host_for(rid) if brokered else None)
        except BaseException as exc:  # never lose a reply: the driver waits for it
            reply = error_reply(exc)
        self._done.put((rid, reply))

    def _admit(self) -> Reply | None:
        with self._lock:
            if self._in_flight >= self.max_queue:
                self._counts["overloaded"] += 1
                return error_reply(Overloaded(
                    f"this node's queue is full ({self.max_queue} calls)",
                    max_queue=self.max_queue))
            self._in_flight += 1
            self._counts["calls"] += 1
            return None

    def _run(self, key: Key, params: dict[str, Any], timeout: float | None,
             shipment: Shipment | None, host: Any = None) -> Reply:
        """An admitted call (it leaves the count when it ends); `host` answers its
        capability requests (a brokered call's `_host_for`)."""
        try:
            pool = self._pools.get(key)
            if pool is None:
                if shipment is None:
                    return (NEED_SOURCE,)
                pool = self._pool(key, shipment)
            try:
                return (OK, pool.call(params, timeout, host=host))
            except UsageError:
                with self._lock:
                    if self._pools.get(key) is pool:
                        raise  # the caller's mistake (params), not a retired pool
                # Retired between the lookup and the call (a version switched back):
                if shipment is None:
                    return (NEED_SOURCE,)
                return (OK, self._pool(key, shipment).call(params, timeout, host=host))
        except Exception as exc:
            return error_reply(exc)
        finally:
            with self._lock:
                self._in_flight -= 1

    def retire(self, name: str, version: int) -> int:
        """Close `name` v`version`'s pools: idle workers end now, busy ones after their call.
        The number of pools retired."""
        with self._lock:
            keys = [k for k in self._pools if k[0] == name and k[1] == version]
            pools = [self._pools.pop(k) for k in keys]
            runners = [self._runners.pop(k) for k in list(self._runners)
                       if k[0] == name and k[1] == version]
        for runner in runners:
            runner.shutdown(wait=False)  # queued calls still run (and find no pool)
        with self._lock:
            self._counts["retired"] += len(pools)
        for pool in pools:
            pool.close(wait=False)
        return len(pools)

    def shutdown(self) -> None:
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
            runners, self._runners = list(self._runners.values()), {}
            parked, self._parked = list(self._parked.values()), {}
        for waiting in parked:  # answered None: their workers are killed
            waiting.answered.set()
        for pool in pools:
            pool.close(wait=False)
        for runner in [*runners, self._threads]:
            runner.shutdown(wait=False)

    # -------------------------------------------------------------------------- internals

    def _runner(self, key: Key, shipment: Shipment | None) -> ThreadPoolExecutor:
        with self._lock:
            runner = self._runners.get(key)
            if runner is not None:
                return runner
            pool = self._pools.get(key)
            size = (pool.size if pool is not None
                    else shipment.settings.size if shipment is not None else 0)
            if size < 1:
                return self._threads  # answered NEED_SOURCE at once
            runner = ThreadPoolExecutor(size, thread_name_prefix="dyntools-host-pool")
            self._runners[key] = runner
            return runner

    def _pool(self, key: Key, shipment: Shipment) -> Any:
        """The pool for `key`, built from `shipment` after the hash and gate checks."""
        with self._lock:
            pool = self._pools.get(key)
            if pool is not None:
                return pool
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:  # one check and one pool per key, however many calls bring the bytes
            with self._lock:
                pool = self._pools.get(key)
            if pool is not None:
                return pool
            pool = self._checked_pool(key, shipment)
            with self._lock:
                self._pools[key] = pool
                self._loading.pop(key, None)
                self._counts["loaded"] += 1
            return pool

    def _checked_pool(self, key: Key, shipment: Shipment) -> Any:
        name, version, expected = key
        digest = hashlib.sha256(shipment.source).hexdigest()
        if digest != expected:
            self._refused()
            raise SourceRefused(
                f"{name} v{version}: the bytes received hash to {digest[:16]}..., not the "
                f"registry's {expected[:16]}...; refused, nothing was compiled",
                tool=name, version=version, check="sha256", expected=expected, got=digest)
        from dyntools.gate import check_source

        report = check_source(shipment.source, shipment.settings.policy, path=shipment.path)
        if not report.accepted:
            self._refused()
            codes = ", ".join(sorted(report.codes))
            raise SourceRefused(
                f"{name} v{version}: this node's gate rejects the bytes ({codes}); refused, "
                "nothing was compiled", tool=name, version=version, check="gate",
                codes=sorted(report.codes))
        try:
            text = shipment.source.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._refused()
            raise SourceRefused(f"{name} v{version}: the bytes are not UTF-8",
                                tool=name, version=version, check="utf-8") from exc
        return shipment.settings.worker_pool(shipment.path, shipment.module_name, text)

    def _refused(self) -> None:
        with self._lock:
            self._counts["refused"] += 1
