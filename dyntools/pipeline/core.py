"""The state every job of the pipeline shares: the registry, the policy, the runtime, the
operator's capability host, and what is known of each version (its metadata, its params
check). `Dyntools` (pipeline/dyntools.py) is this plus its jobs: ensure (pipeline/ensure.py),
approval (pipeline/approval.py) and calls (pipeline/calls.py).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dyntools.base.closing import Closing, OnDemand
from dyntools.capabilities.hostcalls import CapabilityHost, ToolCaller
from dyntools.capabilities.policy import CapabilityPolicy, resolve_capability_policy
from dyntools.errors import (
    UsageError,
)
from dyntools.executors import Executor, build_executor
from dyntools.gate.capabilities import Capabilities
from dyntools.gate.policy import Policy
from dyntools.pipeline.events import AUDIT_FILE
from dyntools.pipeline.runtime import Runtime
from dyntools.pipeline.toolmeta import (
    REGISTRY,
    Tool,
    ToolMetadata,
    params_check,
    read_metadata,
)
from dyntools.registry.config import (
    check_policy,
    stricter,
)
from dyntools.registry.core import Registry
from dyntools.registry.manifest import PENDING
from dyntools.registry.records import VersionRecord, module_name_for
from dyntools.registry.signing import Signer
from dyntools.sandbox import SandboxLimits

if TYPE_CHECKING:
    from dyntools.generators.base import Generator
    from dyntools.pipeline.verify import Example, HostFor


# generate_gated's own default (generators/loop.py; tests/test_startup.py holds the two
# equal), named here so that a `Dyntools` made only to call tools need not import the loop.
DEFAULT_MAX_ATTEMPTS = 3


class PipelineCore(Closing):
    """The shared state and lookups of `Dyntools` (see its docstring for the arguments)."""

    if TYPE_CHECKING:  # pipeline/calls.py's: a composed tool is called as any other
        def call(self, name: str, params: dict[str, Any], *, timeout: float | None = None,
                 tools: ToolSource | None = None, chain: tuple[str, ...] = (),
                 read_only: bool = False) -> dict[str, Any]: ...

    def __init__(
        self,
        registry: Registry | str | os.PathLike[str] | None = None,
        *,
        policy: Policy | None = None,
        generator: Generator | None = None,
        runtime: Runtime | None = None,
        limits: SandboxLimits = SandboxLimits(),  # noqa: B008 (frozen value object)
        require_layers: frozenset[str] = frozenset(),
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        watch: bool = False,
        executor: Executor | str | None = None,
        ray_address: str | None = None,
        approval: str | None = None,
        signer: Signer | None = None,
        approver: str | None = None,
        pool_size: int = 2,
        capabilities: CapabilityPolicy | str | os.PathLike[str] | None = None,
        allow_weaker_sandbox: bool | None = None,
        allow_unreviewed_repairs: bool = False,
        keep_failed_calls: bool = True,
        isolation: str = "worker",
    ) -> None:
        # Checked first: a wrong executor name fails before anything is opened.
        self.executor: Executor = build_executor(executor, ray_address_=ray_address)
        self._owns_executor = executor is None or isinstance(executor, str)
        if self.executor.adopts_local_pools and runtime is None:
            # Workers of this machine's pools are forked from a zygote: it starts now, while
            # the registry opens and the first tool is checked (sandbox/zygote.py).
            from dyntools.sandbox.pool import warm_up

            warm_up()
        if isinstance(registry, Registry):
            if policy is not None and policy.digest != registry.policy.digest:
                raise ValueError("policy differs from the registry's policy")
            self.registry = registry
        else:
            self.registry = Registry.open(registry, policy, lazy=True)
        self.policy = self.registry.policy
        self.limits = limits
        from dyntools.sandbox.limits import LAYERS

        unknown = sorted(set(require_layers) - set(LAYERS))
        if unknown:
            raise UsageError(f"unknown sandbox layer(s) {', '.join(unknown)}; known: "
                             f"{', '.join(LAYERS)}")
        self.require_layers = frozenset(require_layers)
        # Tool code runs only where the sandbox's default minimum holds (sandbox/minimum.py),
        # unless the operator opts in: here, else DYNTOOLS_ALLOW_WEAKER_SANDBOX=1.
        self.allow_weaker_sandbox = _allow_weaker(allow_weaker_sandbox)
        self.max_attempts = max_attempts
        # The approval policy: the registry's, made stricter (never looser) by `approval`.
        self.approval = stricter(self.registry.approval,
                                 check_policy(approval) if approval is not None else None)
        self.signer = signer
        self.approver = approver
        self._generator = generator
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
            raise UsageError(f"pool_size must be a whole number of at least 1, got {pool_size!r}")
        self.pool_size = pool_size
        from dyntools.sandbox.isolation import check_isolation

        self.isolation = check_isolation(isolation)
        self._runtime: OnDemand[Runtime] = OnDemand(self._make_runtime, runtime)
        self._watch = watch
        self._lock = threading.Lock()
        self._name_locks: dict[str, threading.Lock] = {}
        # The operator's capability policy: `capabilities`, else DYNTOOLS_CAPABILITIES, else
        # none (nothing granted). A version's CAPABILITIES are granted only within it.
        self.capabilities = CapabilityHost(resolve_capability_policy(capabilities))
        # A repair asked for through this object (an agent's counterexample) waits for a
        # reviewer unless the operator allows it to follow the approval policy (the CLI's
        # own `repair` does): pipeline/repair.py.
        self.allow_unreviewed_repairs = bool(allow_unreviewed_repairs)
        self.keep_failed_calls = bool(keep_failed_calls)
        self._metadata: dict[tuple[str, int, str], ToolMetadata] = {}
        self._checks: dict[tuple[str, int, str], Callable[[Any], None]] = {}
        if watch and runtime is None:
            _ = self.runtime

    # ------------------------------------------------------------------------------ ensure

    @property
    def audit_path(self) -> Path:
        """Where the CLI writes the audit log: `<registry>/audit.log`."""
        return self.registry.root / AUDIT_FILE

    @property
    def generator(self) -> Generator:
        if self._generator is None:
            from dyntools.generators.offline import OfflineGenerator

            self._generator = OfflineGenerator()
        return self._generator


    def _open_pool(self, name: str, version: int, source: str) -> Any:
        from dyntools.sandbox import WorkerPool

        pool = WorkerPool(
            self.registry.path_of(name, version),
            module_name=module_name_for(name, version),
            policy=self.policy,
            limits=self.limits,
            size=1,
            require_layers=self.require_layers,
            source=source,
            allow_weaker_sandbox=self.allow_weaker_sandbox,
            isolation=self.isolation,  # the runtime may adopt it to serve calls
        )
        try:
            pool.start()
        except BaseException:
            pool.close(wait=True)
            raise
        return pool

    def _contract_examples(self, name: str) -> tuple[Example, ...]:
        """What the current version promised: the examples it passed when it was verified
        (or, for a version added by hand, the EXAMPLES it declares)."""
        from dyntools.pipeline.verify import CONTRACT, Example

        current = self.registry.current(name)
        found: list[Example] = []
        if current is not None:
            verification = current.provenance.get("verification")
            values: Any = None
            if isinstance(verification, Mapping):
                values = verification.get("examples")
            if not isinstance(values, list):
                values = self._meta(current).examples
            found = [Example.parse(v, CONTRACT) for v in values]
        if name in self.registry.names():
            # Counterexamples a repair added stay in the contract whichever version is
            # current (pipeline/contract.py); with trusted keys, the chain says which.
            from dyntools.pipeline.contract import (
                counterexamples,
                gap_message,
                signed_counterexamples,
                signed_gap,
            )

            state = self.registry.tool(name)
            missing = signed_gap(state)
            if missing:
                from dyntools.errors import ChainMismatch

                raise ChainMismatch(gap_message(name, missing), tool=name,
                                    missing=list(missing))
            found += [*counterexamples(state), *signed_counterexamples(state)]
        return tuple(found)

    def pending_version(self, name: str) -> VersionRecord | None:
        """The newest pending version of `name` newer than its current one, or None."""
        current = self.registry.current(name)
        for record in self.registry.versions(name)[::-1]:
            if current is not None and record.version <= current.version:
                return None
            if record.status == PENDING:
                return record
        return None

    def pending(self) -> list[VersionRecord]:
        """Every version awaiting a reviewer's decision, by tool then version."""
        return [record for state in self.registry.tools()
                for _, record in sorted(state.records.items()) if record.status == PENDING]


    @contextlib.contextmanager
    def _name_lock(self, name: str) -> Iterator[None]:
        with self._lock:
            lock = self._name_locks.setdefault(name, threading.Lock())
        with lock:
            yield


    def _tool(self, record: VersionRecord) -> Tool:
        meta = self._meta(record)
        return Tool(record.name, meta.description, meta.params, REGISTRY, record.version)

    def _params_check(self, record: VersionRecord,
                      source: bytes | None = None) -> Callable[[Any], None]:
        """The check of a call's params for `record` (`source`: its verified bytes, when the
        caller holds them)."""
        key = (record.name, record.version, record.sha256)
        check = self._checks.get(key)
        if check is None:
            check = params_check(self._meta(record, source).params, record.name)
            self._checks[key] = check
        return check

    def _remember_meta(self, record: VersionRecord, meta: ToolMetadata) -> None:
        """The gate's reading of a version this process just persisted (its bytes are the
        ones gated), so serving it needs no second parse."""
        self._metadata[(record.name, record.version, record.sha256)] = meta

    def _meta(self, record: VersionRecord, source: bytes | None = None) -> ToolMetadata:
        """What `record` declares (`source`: its verified bytes, when the caller holds them;
        else they are read, hash-checked, here)."""
        key = (record.name, record.version, record.sha256)
        meta = self._metadata.get(key)
        if meta is None:
            data = source if source is not None else (
                self.registry.verified_source(record.name, record.version,
                                              sha256=record.sha256) if record.usable
                else self.registry.read_recorded(record.name, record.version))
            meta = read_metadata(data)
            self._metadata[key] = meta
        return meta

    def _declared_by(self, record: VersionRecord) -> Capabilities:
        """What the version declares in CAPABILITIES (from its cached metadata)."""
        return self._meta(record).capabilities

    def _composer(self, tools: ToolSource | None, *, read_only: bool = False) -> ToolCaller:
        """How `host.call_tool` reaches a composed tool: through `tools` (a Catalog), else
        this registry; the composed call inherits the remaining budget, the chain and
        `read_only` (verification: what it composes may read the world, never act on it)."""
        source = tools if tools is not None else self

        def compose(name: str, params: dict[str, Any], timeout: float,
                    chain: tuple[str, ...]) -> dict[str, Any]:
            return source.call(name, params, timeout=timeout, chain=chain, read_only=read_only)

        return compose

    def _replay_hosts(self, name: str, version: int, declared: Capabilities,
                      tools: ToolSource | None) -> HostFor | None:
        """Verification's hosts: each example's recorded exchanges, the real catalog."""
        if not declared:
            return None
        return self.capabilities.replaying(tool=name, version=version, declared=declared,
                                           tools=self._composer(tools, read_only=True))

    def secrets_redactor(self) -> Callable[[Any], Any]:
        """`value` with every form of every secret the operator's policy holds (with a value
        on this host) replaced by `[redacted:NAME]`, as the broker redacts: for what is kept
        of a failed call (pipeline/failed_calls.py)."""
        policy = self.capabilities.policy
        if policy is None or not policy.secrets:
            return lambda value: value
        from dyntools.capabilities.hostcalls import redact_value
        from dyntools.capabilities.redaction import Redactor, available_secrets

        redactor = Redactor(available_secrets(policy.secrets, os.environ))
        return lambda value: redact_value(value, redactor)

    @property
    def runtime(self) -> Runtime:
        """The warm runtime calls go through (created on first use): one worker pool per tool
        version, swapped when the current version changes. Its `describe()` shows the
        active versions and their calls in flight; `close()` here closes it."""
        return self._runtime.get()

    def _make_runtime(self) -> Runtime:
        return Runtime(self.registry, limits=self.limits, require_layers=self.require_layers,
                       watch=self._watch, executor=self.executor, pool_size=self.pool_size,
                       allow_weaker_sandbox=self.allow_weaker_sandbox,
                       isolation=self.isolation)

    # ---------------------------------------------------------------------------- lifecycle

    def close(self) -> None:
        self._runtime.close()
        self.capabilities.close()
        if self._owns_executor:
            self.executor.close()


def _allow_weaker(explicit: bool | None) -> bool:
    """The opt-in below the sandbox's minimum: `explicit`, else the environment's; an opt-in
    is written to the audit log (the layers a worker then lacks are too, as it starts)."""
    from dyntools.sandbox.minimum import ALLOW_WEAKER_ENV, MINIMUM_TEXT, resolve_allow_weaker

    allowed = resolve_allow_weaker(explicit)
    if allowed:
        from dyntools.base.log import get_logger

        get_logger("pipeline").info(
            "sandbox.weaker_allowed", minimum=MINIMUM_TEXT,
            source="allow_weaker_sandbox=True" if explicit else f"{ALLOW_WEAKER_ENV}=1")
    return allowed


def approver_name() -> str:
    from dyntools.registry.core import default_approver

    return default_approver()


def sha256_of(data: bytes) -> str:
    from dyntools.gate.findings import sha256_hex

    return sha256_hex(data)



class ToolSource(Protocol):
    """Where `host.call_tool` finds tools: a Catalog, or a Dyntools (its registry)."""

    def call(self, name: str, params: dict[str, Any], *, timeout: float | None = None,
             chain: tuple[str, ...] = (), read_only: bool = False) -> dict[str, Any]: ...


def pool_call(pool: Any) -> Callable[..., dict[str, Any]]:
    """A verification pool's call, with a capability tool's replaying host when given."""
    def call(params: dict[str, Any], host: Any = None) -> dict[str, Any]:
        result: dict[str, Any] = pool.call(params) if host is None else \
            pool.call(params, host=host)
        return result

    return call
