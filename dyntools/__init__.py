"""dyntools: let an LLM agent grow the tools it is missing, safely.

    from dyntools import Catalog, Dyntools

    with Dyntools("generated_tools") as dt:
        dt.ensure("slugify_text")                       # generate, gate, verify, activate
        dt.call("slugify_text", {"text": "Hello World"})

Names are resolved on first use: `import dyntools` imports nothing else, which keeps the
sandbox worker (it imports `dyntools.sandbox.worker`) and the CLI fast, and never loads the
model SDKs (anthropic, openai) or mcp until a generator or an adapter needs them.
"""

from __future__ import annotations

__version__ = "0.1.0"

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the worker time
if TYPE_CHECKING:
    from typing import Any

    from dyntools.catalog import Catalog
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
    from dyntools.log import configure_logging
    from dyntools.pipeline import Dyntools, EnsureResult, StationEvent
    from dyntools.registry import Registry
    from dyntools.sandbox import SandboxLimits
    from dyntools.toolmeta import Tool
    from dyntools.verify import VerificationReport

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
    "__version__",
    "build_generator",
    "check_source",
    "configure_logging",
]

_ERRORS = "dyntools.errors"
_HOMES = {
    "Catalog": "dyntools.catalog",
    "Dyntools": "dyntools.pipeline",
    "EnsureResult": "dyntools.pipeline",
    "StationEvent": "dyntools.pipeline",
    "Generator": "dyntools.generators",
    "ToolSpec": "dyntools.generators",
    "build_generator": "dyntools.generators",
    "Registry": "dyntools.registry",
    "SandboxLimits": "dyntools.sandbox",
    "Tool": "dyntools.toolmeta",
    "VerificationReport": "dyntools.verify",
    "check_source": "dyntools.gate",
    "configure_logging": "dyntools.log",
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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'dyntools' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
