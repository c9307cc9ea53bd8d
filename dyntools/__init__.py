"""dyntools: let an LLM agent grow the tools it is missing, safely.

    from dyntools import Catalog, Dyntools, Registry, Runtime, WorkerPool
    from dyntools.gate.policy import load_policy

    with Dyntools("generated_tools") as dt:
        dt.ensure("slugify_text")                       # generate, gate, verify, activate
        dt.call("slugify_text", {"text": "Hello World"})
        dt.runtime.describe()                           # the warm pools behind the calls
        dt.run_code("result = tools.slugify_text(text=inputs['t'])", {"t": "Hi"})  # RunOutcome

    with Runtime(Registry.open("generated_tools"), pool_size=4) as runtime:
        runtime.call("slugify_text", {"text": "Hello World"})   # no generation, no ensure

    with WorkerPool("tool.py", module_name="tool", policy=load_policy()) as pool:
        pool.call({"text": "Hello World"})              # one file, no registry

`Runtime` maps tool names to warm `WorkerPool`s of their current versions (hot-swapped when a
version changes); `WorkerPool` runs one file's workers under `SandboxLimits`.

Names are resolved on first use: `import dyntools` imports nothing else, which keeps the
sandbox worker (it imports `dyntools.sandbox.worker.process`) and the CLI fast, and never loads the
model SDKs (anthropic, openai) or mcp until a generator or an adapter needs them.
"""

from __future__ import annotations

__version__ = "0.1.0"

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the worker time
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from dyntools.base.log import configure_logging
    from dyntools.catalog.core import Catalog
    from dyntools.codemode.limits import RunLimits
    from dyntools.codemode.outcome import RunOutcome
    from dyntools.errors import (
        DyntoolsError,
        GateRejected,
        GenerationError,
        InvalidParams,
        LoadError,
        PersistError,
        RegistryError,
        SandboxError,
        SandboxTimeout,
        ToolRuntimeError,
        UnknownTool,
        UsageError,
        VerificationFailed,
        VersionUnusable,
    )
    from dyntools.gate import check_source
    from dyntools.generators import Generator, ToolSpec, build_generator
    from dyntools.pipeline.dyntools import Dyntools
    from dyntools.pipeline.ensure import EnsureResult
    from dyntools.pipeline.events import StationEvent
    from dyntools.pipeline.runtime import Runtime
    from dyntools.pipeline.toolmeta import Tool
    from dyntools.pipeline.verify import VerificationReport
    from dyntools.registry.core import Registry
    from dyntools.sandbox import SandboxLimits, WorkerPool

__all__ = [
    "Catalog",
    "Dyntools",
    "DyntoolsError",
    "EnsureResult",
    "GateRejected",
    "GenerationError",
    "Generator",
    "InvalidParams",
    "LoadError",
    "PersistError",
    "Registry",
    "RegistryError",
    "RunLimits",
    "RunOutcome",
    "Runtime",
    "SandboxError",
    "SandboxLimits",
    "SandboxTimeout",
    "StationEvent",
    "Tool",
    "ToolRuntimeError",
    "ToolSpec",
    "UnknownTool",
    "UsageError",
    "VerificationFailed",
    "VerificationReport",
    "VersionUnusable",
    "WorkerPool",
    "__version__",
    "build_generator",
    "check_source",
    "configure_logging",
]

_ERRORS = "dyntools.errors"
_HOMES = {
    "Catalog": "dyntools.catalog.core",
    "Dyntools": "dyntools.pipeline.dyntools",
    "EnsureResult": "dyntools.pipeline.ensure",
    "StationEvent": "dyntools.pipeline.events",
    "Generator": "dyntools.generators",
    "ToolSpec": "dyntools.generators",
    "build_generator": "dyntools.generators",
    "Registry": "dyntools.registry",
    "Runtime": "dyntools.pipeline.runtime",
    "RunLimits": "dyntools.codemode.limits",
    "RunOutcome": "dyntools.codemode.outcome",
    "SandboxLimits": "dyntools.sandbox.limits",
    "WorkerPool": "dyntools.sandbox.pool",
    "Tool": "dyntools.pipeline.toolmeta",
    "VerificationReport": "dyntools.pipeline.verify",
    "check_source": "dyntools.gate",
    "configure_logging": "dyntools.base.log",
    **dict.fromkeys(
        (
            "DyntoolsError",
            "GateRejected",
            "GenerationError",
            "InvalidParams",
            "LoadError",
            "PersistError",
            "RegistryError",
            "SandboxError",
            "SandboxTimeout",
            "ToolRuntimeError",
            "UnknownTool",
            "UsageError",
            "VerificationFailed",
            "VersionUnusable",
        ),
        _ERRORS,
    ),
}


def lazy_exports(package: str, homes: Mapping[str, str],
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for a package whose public names are imported on first use
    (PEP 562): `homes` maps each name to the module that defines it. Every lazy package of
    dyntools (this one, sandbox, registry, pipeline, generators, capabilities) is made so."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        return getattr(importlib.import_module(home), name)

    def __dir__() -> list[str]:
        import sys

        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
