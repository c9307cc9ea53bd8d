"""Hot loading: each tool name maps to the worker pool of its current version.

    runtime = Runtime(registry, watch=True)
    runtime.call("slugify_text", {"text": "Hello World"})

A call checks the registry's current version (an in-memory lookup). When it differs from the
version whose pool is active, a pool for the new version takes over: new calls go to it, while
calls already inside the old pool finish there, and the old pool is closed once its last call
returns. A version is loaded from the bytes the registry has just hash-checked
(`verified_source`), and those bytes, not the file, are what the workers receive, so an edit
between the check and the load cannot run.

The registry tells the runtime when a tool changes (a new version from this process, a watch
event, a quarantine), so the swap and the new pool's warm-up happen before the next call.

Where a version's workers live is the executor's business (`dyntools.executors`): `local`
warm pools on this machine (the default) or `ray` actors on a cluster. The hot-load logic
above is the same for both.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dyntools.base.closing import Closing
from dyntools.base.log import get_logger
from dyntools.errors import VersionUnusable
from dyntools.executors import Executor, Pool, PoolSettings, build_executor
from dyntools.registry.core import Registry
from dyntools.registry.records import VersionRecord
from dyntools.sandbox import SandboxLimits
from dyntools.sandbox.isolation import WORKER, check_isolation

if TYPE_CHECKING:
    from dyntools.registry.watch import RegistryWatcher
    from dyntools.sandbox.runner import HostHandler

__all__ = ["Pool", "PoolFactory", "Runtime"]

PoolFactory = Callable[[VersionRecord, str], Pool]


def _same(a: VersionRecord, b: VersionRecord) -> bool:
    """The same version of the same bytes: a pool started on `a` may serve `b` (a manifest
    rewritten behind this process can give a version number other bytes)."""
    return a.version == b.version and a.sha256 == b.sha256


class _Slot:
    """One version's pool and its calls in flight (compared by identity)."""

    __slots__ = ("in_flight", "pool", "record", "retiring")

    def __init__(self, record: VersionRecord, pool: Pool) -> None:
        self.record = record
        self.pool = pool
        self.in_flight = 0
        self.retiring = False


class Runtime(Closing):
    """Thread-safe. `close()` retires every pool (waiting for running calls)."""

    def __init__(
        self,
        registry: Registry,
        *,
        limits: SandboxLimits = SandboxLimits(),  # noqa: B008 (frozen value object)
        pool_size: int = 2,
        max_calls_per_worker: int = 1000,
        require_layers: frozenset[str] = frozenset(),
        pool_factory: PoolFactory | None = None,
        watch: bool = False,
        prewarm: bool = True,
        executor: Executor | str | None = None,
        allow_weaker_sandbox: bool = False,
        isolation: str = WORKER,
    ) -> None:
        """`allow_weaker_sandbox`: the operator's opt-in to run tool code below the
        sandbox's default minimum (dyntools/sandbox/minimum.py); without it a worker there is
        refused (LayerUnavailable) before any tool code runs. `isolation`: "worker" (warm
        workers serve call after call) or "call" (no process that ran a call runs another;
        dyntools/sandbox/isolation.py)."""
        self._isolation = check_isolation(isolation)
        self.registry = registry
        self._limits = limits
        self._pool_size = pool_size
        self._max_calls = max_calls_per_worker
        self._require_layers = require_layers
        self._allow_weaker_sandbox = allow_weaker_sandbox
        # An executor passed as an object belongs to the caller; one built here is closed here.
        self._owns_executor = executor is None or isinstance(executor, str)
        self.executor: Executor = build_executor(executor)
        self._factory = pool_factory or self._worker_pool
        self._prewarm = prewarm
        self._lock = threading.Lock()
        self._active: dict[str, _Slot] = {}
        self._retiring: list[_Slot] = []
        # Per tool, the current version the registry's last notice named (None: none is):
        # a pool loaded for that version, or before any notice, is installed without a
        # second lookup; one loaded for another version is checked against the registry.
        self._latest: dict[str, int | None] = {}
        self._closed = False
        registry.subscribe(self._on_registry_change)
        self._watcher: RegistryWatcher | None = registry.watch() if watch else None

    @property
    def settings(self) -> PoolSettings:
        """How every pool of this runtime is locked down and sized, on any executor."""
        return PoolSettings(
            policy=self.registry.policy,
            limits=self._limits,
            size=self._pool_size,
            max_calls_per_worker=self._max_calls,
            require_layers=self._require_layers,
            allow_weaker_sandbox=self._allow_weaker_sandbox,
            isolation=self._isolation,
        )

    def _worker_pool(self, record: VersionRecord, source: str) -> Pool:
        pool = self.executor.pool(record, source, self.settings)
        if self._prewarm:
            threading.Thread(target=_start_quietly, args=(pool,), daemon=True,
                             name=f"dyntools-prewarm-{record.name}").start()
        return pool

    # ------------------------------------------------------------------------------ calls

    def call(
        self, name: str, params: dict[str, Any], timeout: float | None = None, *,
        host: HostHandler | None = None,
        prepare: Callable[[VersionRecord], HostHandler | None] | None = None,
        current: tuple[VersionRecord, str | None] | None = None,
    ) -> dict[str, Any]:
        """Run `name`'s current version; raises UnknownTool, VersionUnusable, SandboxError.
        `host` answers a capability tool's requests (dyntools.capabilities.hostcalls.HostCalls); or
        `prepare(record)` is handed the very version this call runs on, once it is checked
        out, and returns its host (so a version switch in between can never run one
        version's code with another's capabilities). `current` is the current version and
        its verified source (None: not read), when the caller has just looked them up: the
        runtime then neither looks up nor reads the version again."""
        slot = self._checkout(name, current)
        try:
            if prepare is not None:
                host = prepare(slot.record)
            if host is None:
                return slot.pool.call(params, timeout)
            return slot.pool.call(params, timeout, host=host)
        finally:
            self._checkin(slot)

    def serves(self, record: VersionRecord) -> bool:
        """Whether `record`'s pool is loaded and takes calls now: a call to it then runs the
        bytes that pool was started from, and needs no read of the version's file."""
        slot = self._active.get(record.name)
        return slot is not None and _same(slot.record, record)

    def active_version(self, name: str) -> int | None:
        """The version whose pool takes new calls now (None before the first call)."""
        slot = self._active.get(name)
        return slot.record.version if slot is not None else None

    def describe(self) -> dict[str, Any]:
        """Per tool: the active version and its calls in flight, and pools still draining."""
        with self._lock:
            return {
                "active": {n: {"version": s.record.version, "in_flight": s.in_flight}
                           for n, s in sorted(self._active.items())},
                "retiring": [{"tool": s.record.name, "version": s.record.version,
                              "in_flight": s.in_flight} for s in self._retiring],
            }

    def load(self, name: str) -> VersionRecord:
        """Make sure the current version's pool exists (and is warming up)."""
        slot = self._checkout(name)
        self._checkin(slot)
        return slot.record

    def adopt(self, record: VersionRecord, pool: Pool) -> bool:
        """Install a pool already started on `record`'s verified bytes (the pipeline's
        verification pool) as the version's active pool. False, and the pool is left to the
        caller, when `record` is not current or already has a pool."""
        if not self.executor.adopts_local_pools:
            return False  # calls run where the executor puts them, not in a local pool
        with self._lock:
            current = self.registry.current(record.name)
            active = self._active.get(record.name)
            if (
                self._closed
                or current is None
                or current.version != record.version
                or (active is not None and _same(active.record, record))
            ):
                return False
            self._active[record.name] = _Slot(record, pool)
            if active is not None:
                self._retire_locked(active)
        get_logger("runtime").info(
            "runtime.version_loaded", tool=record.name, version=record.version,
            previous=active.record.version if active else None, module=record.module_name,
            adopted=True,
        )
        return True

    def _checkout(self, name: str,
                  current: tuple[VersionRecord, str | None] | None = None) -> _Slot:
        while True:
            record, source = current if current is not None else (self.registry.served(name),
                                                                   None)
            with self._lock:
                if self._closed:
                    raise VersionUnusable("the runtime is closed", tool=name)
                slot = self._active.get(name)
                if slot is not None and _same(slot.record, record):
                    slot.in_flight += 1
                    return slot
            # Loading reads and hash-checks the file, which may quarantine it and notify the
            # registry's listeners (this runtime among them): never while holding the lock.
            try:
                slot = self._load(name, record, source)
            except VersionUnusable:
                if current is None:
                    raise
                # The caller's lookup went stale (its version was quarantined, retired or
                # rolled back since): look again, as a call that had looked later would.
                slot = None
            if slot is not None:
                with self._lock:
                    slot.in_flight += 1
                    return slot
            current = None  # lost a race, or the pointer moved: look again

    def _load(self, name: str, record: VersionRecord,
              source: str | None = None) -> _Slot | None:
        """Start a pool for `record` (from `source`, its verified bytes, when given) and
        install it if `record` is still current; else None (the caller looks again)."""
        if source is None:
            source = self.registry.verified_source(name, record.version,
                                                   sha256=record.sha256).decode("utf-8")
        pool = self._factory(record, source)
        with self._lock:
            active = self._active.get(name)
            latest = self._latest.get(name, record.version)
            if latest != record.version:  # a notice named another version since: ask
                now = self.registry.current(name)
                latest = now.version if now is not None else None
            still_wanted = not self._closed and latest == record.version
            if still_wanted and (active is None or not _same(active.record, record)):
                slot = _Slot(record, pool)
                self._active[name] = slot
                if active is not None:
                    self._retire_locked(active)
                get_logger("runtime").info(
                    "runtime.version_loaded", tool=name, version=record.version,
                    previous=active.record.version if active else None,
                    module=record.module_name,
                )
                return slot
        pool.close(wait=False)  # lost a race with another loader, or the pointer moved
        return None

    def _checkin(self, slot: _Slot) -> None:
        with self._lock:
            slot.in_flight -= 1
            close_now = slot.retiring and slot.in_flight == 0
            if close_now:
                self._retiring.remove(slot)
        if close_now:
            slot.pool.close(wait=False)

    def _retire_locked(self, slot: _Slot) -> None:
        if slot.in_flight == 0:
            threading.Thread(target=slot.pool.close, kwargs={"wait": False}, daemon=True).start()
        else:
            slot.retiring = True
            self._retiring.append(slot)

    def _on_registry_change(self, name: str) -> None:
        """Swap (or drop) a loaded tool's pool as soon as its current version changes."""
        record = self.registry.current(name)  # may check a version: not under the lock
        with self._lock:
            self._latest[name] = record.version if record is not None else None
            slot = self._active.get(name)
            if self._closed or slot is None:
                return
            if record is not None and _same(record, slot.record):
                return
            if record is None:
                del self._active[name]
                self._retire_locked(slot)
                get_logger("runtime").warning("runtime.version_unloaded", tool=name,
                                              version=slot.record.version)
                return
        try:
            self._load(name, record)
        except Exception as exc:  # the next call retries and raises to its caller
            get_logger("runtime").error("runtime.swap_failed", tool=name, error=repr(exc))

    # ---------------------------------------------------------------------------- lifecycle

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
        with self._lock:
            self._closed = True
            slots = [*self._active.values(), *self._retiring]
            self._active.clear()
            self._retiring.clear()
        for slot in slots:
            slot.pool.close(wait=True)
        if self._owns_executor:
            self.executor.close()


def _start_quietly(pool: Pool) -> None:
    start = getattr(pool, "start", None)
    if start is None:
        return
    try:
        start()
    except Exception as exc:  # a failed warm-up surfaces on the first call instead: said
        get_logger("runtime").info("runtime.prewarm_failed", error=repr(exc))  # once, there
