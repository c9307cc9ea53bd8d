"""What an executor is: the pools it makes (`Pool`), how they are locked down and sized
(`PoolSettings`), and the `Executor` protocol the local pools and Ray both implement. Both
executors import this module, never the package's `__init__`, which chooses between them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from dyntools.sandbox.limits import SandboxLimits

if TYPE_CHECKING:
    from pathlib import Path

    from dyntools.gate.policy import Policy
    from dyntools.registry.records import VersionRecord
    from dyntools.sandbox.runner import HostHandler


class Pool(Protocol):
    """One tool version's workers, wherever they run."""

    def call(self, params: dict[str, Any], timeout: float | None = None, *,
             host: HostHandler | None = None) -> dict[str, Any]:
        """`host` answers the call's capability requests
        (dyntools.capabilities.hostcalls.HostCalls)."""
        ...

    def close(self, wait: bool = True) -> None: ...


class PoolSettings(NamedTuple):
    """How a version's workers are locked down and sized: the same on every node."""

    policy: Policy
    limits: SandboxLimits = SandboxLimits()  # immutable: one shared default
    size: int = 2
    max_calls_per_worker: int = 1000
    require_layers: frozenset[str] = frozenset()
    # the operator's opt-in to run below the sandbox's default minimum (sandbox/minimum.py)
    allow_weaker_sandbox: bool = False
    # "call": no worker serves a second call (sandbox/isolation.py); "worker": warm workers
    isolation: str = "worker"

    def worker_pool(self, path: Path | str, module_name: str, source: str) -> Pool:
        """A pool of worker processes here, for the tool file `path`, from `source` (its
        verified bytes, decoded) under these settings."""
        from dyntools.sandbox import WorkerPool

        return WorkerPool(path, module_name=module_name, policy=self.policy,
                          limits=self.limits, size=self.size,
                          max_calls_per_worker=self.max_calls_per_worker,
                          require_layers=self.require_layers, source=source,
                          allow_weaker_sandbox=self.allow_weaker_sandbox,
                          isolation=self.isolation)


class Executor(Protocol):
    """Creates the pools a `Runtime` serves calls from."""

    name: str
    # True when a pool started elsewhere on this machine (the pipeline's verification pool)
    # can take this executor's calls; a remote executor starts its own pools.
    adopts_local_pools: bool

    def pool(self, record: VersionRecord, source: str, settings: PoolSettings) -> Pool:
        """A pool for `record`, from `source`: the registry's hash-checked bytes, decoded."""
        ...

    def doctor(self, settings: PoolSettings) -> dict[str, Any]:
        """The sandbox layer report of every place calls may run."""
        ...

    def close(self) -> None: ...
