"""Where sandboxed calls run: this machine's warm pools (`local`) or a Ray cluster (`ray`).

    Dyntools("generated_tools")                                    # local (the default)
    Dyntools("generated_tools", executor="ray", ray_address="auto")

The runtime asks its executor for one pool per tool version (`Executor.pool`) and keeps the
hot-load logic itself: new calls go to the current version's pool, calls in flight finish in
the old one, which is closed once idle. An executor only decides where a version's workers
live. Whatever the executor, the registry, the gate and approvals stay on the driver, and a
worker receives only the gated bytes the registry has just hash-checked.

The executor is chosen by the `executor` argument, else `DYNTOOLS_EXECUTOR`, else `local`;
Ray's address by `ray_address`, else `DYNTOOLS_RAY_ADDRESS`, else "auto" (a running cluster:
never one started unasked; "local" starts one), reached within a deadline
(executors/ray_connect.py).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from dyntools.errors import UsageError
from dyntools.executors.base import Executor, Pool, PoolSettings

if TYPE_CHECKING:
    from dyntools.registry.records import VersionRecord

EXECUTORS = ("local", "ray")
ENV_EXECUTOR = "DYNTOOLS_EXECUTOR"
ENV_RAY_ADDRESS = "DYNTOOLS_RAY_ADDRESS"


class LocalExecutor:
    """Today's warm pools: worker subprocesses of this process, on this machine."""

    name = "local"
    adopts_local_pools = True

    def pool(self, record: VersionRecord, source: str, settings: PoolSettings) -> Pool:
        return settings.worker_pool(record.path, record.module_name, source)

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
    """`address`, else DYNTOOLS_RAY_ADDRESS, else None ("auto" to the Ray executor: a running
    cluster, never one it starts)."""
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
