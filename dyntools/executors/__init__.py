"""Where sandboxed calls run: this machine's warm pools (`local`) or a Ray cluster (`ray`).

    Dyntools("generated_tools")                                    # local (the default)
    Dyntools("generated_tools", executor="ray", ray_address="auto")

The runtime asks its executor for one pool per tool version (`Executor.pool`) and keeps the
hot-load logic itself: new calls go to the current version's pool, calls in flight finish in
the old one, which is closed once idle. An executor only decides where a version's workers
live. Whatever the executor, the registry, the gate and approvals stay on the driver, and a
worker receives only the gated bytes the registry has just hash-checked.

The executor is chosen by the `executor` argument, else `DYNTOOLS_EXECUTOR`, else `local`;
Ray's address by `ray_address`, else `DYNTOOLS_RAY_ADDRESS`, else Ray's own default.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

from dyntools.errors import UsageError
from dyntools.sandbox.limits import SandboxLimits

if TYPE_CHECKING:
    from typing import NamedTuple

    from dyntools.gate.policy import Policy
    from dyntools.registry.records import VersionRecord
    from dyntools.sandbox.runner import HostHandler
else:  # typing's checks every annotation as the class is made (dyntools/base/tuples.py)
    from dyntools.base.tuples import NamedTuple

EXECUTORS = ("local", "ray")
ENV_EXECUTOR = "DYNTOOLS_EXECUTOR"
ENV_RAY_ADDRESS = "DYNTOOLS_RAY_ADDRESS"


class Pool(Protocol):
    """One tool version's workers, wherever they run."""

    def call(self, params: dict[str, Any], timeout: float | None = None, *,
             host: HostHandler | None = None) -> dict[str, Any]:
        """`host` answers the call's capability requests
        (dyntools.capabilities.hostcalls.HostCalls)."""
        ...

    def close(self, wait: bool = True) -> None: ...


class PoolSettings(NamedTuple):
    """How a version's workers are locked down and sized: the same on every node. (A
    NamedTuple, not a dataclass: see registry/records.py.)"""

    policy: Policy
    limits: SandboxLimits = SandboxLimits()  # immutable: one shared default
    size: int = 2
    max_calls_per_worker: int = 1000
    require_layers: frozenset[str] = frozenset()
    # the operator's opt-in to run below the sandbox's default minimum (sandbox/minimum.py)
    allow_weaker_sandbox: bool = False


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


class LocalExecutor:
    """Today's warm pools: worker subprocesses of this process, on this machine."""

    name = "local"
    adopts_local_pools = True

    def pool(self, record: VersionRecord, source: str, settings: PoolSettings) -> Pool:
        from dyntools.sandbox import WorkerPool

        return WorkerPool(
            record.path,
            module_name=record.module_name,
            policy=settings.policy,
            limits=settings.limits,
            size=settings.size,
            max_calls_per_worker=settings.max_calls_per_worker,
            require_layers=settings.require_layers,
            source=source,
            allow_weaker_sandbox=settings.allow_weaker_sandbox,
        )

    def doctor(self, settings: PoolSettings) -> dict[str, Any]:
        import platform

        from dyntools.sandbox.doctor import doctor_report

        report = doctor_report(settings.policy)
        return {"executor": self.name,
                "nodes": [{"node": platform.node(), "address": "local", **report}]}

    def close(self) -> None:
        return None


def executor_name(executor: str | None) -> str:
    """`executor`, else DYNTOOLS_EXECUTOR, else "local"; checked against `EXECUTORS`."""
    name = (executor if executor is not None else os.environ.get(ENV_EXECUTOR, "")).strip()
    name = name.lower() or "local"
    if name not in EXECUTORS:
        raise UsageError(f"unknown executor {name!r}; known: {', '.join(EXECUTORS)}",
                         executor=name)
    return name


def ray_address(address: str | None) -> str | None:
    """`address`, else DYNTOOLS_RAY_ADDRESS, else None (Ray's own default)."""
    if address:
        return address
    return os.environ.get(ENV_RAY_ADDRESS) or None


def build_executor(executor: str | Executor | None = None, *,
                   ray_address_: str | None = None, **ray_options: Any) -> Executor:
    """An executor object from a name (or the environment); an object is returned as is."""
    if executor is not None and not isinstance(executor, str):
        return executor
    name = executor_name(executor)
    if name == "local":
        if ray_address_:
            raise UsageError("a Ray address was given but the executor is 'local'; "
                             "use executor='ray' (--executor ray)")
        return LocalExecutor()
    from dyntools.executors.ray_executor import RayExecutor

    return RayExecutor(ray_address(ray_address_), **ray_options)


__all__ = [
    "ENV_EXECUTOR",
    "ENV_RAY_ADDRESS",
    "EXECUTORS",
    "Executor",
    "LocalExecutor",
    "Pool",
    "PoolSettings",
    "build_executor",
    "executor_name",
    "ray_address",
]
