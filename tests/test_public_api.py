"""The public surface is pinned: a name added to or dropped from `dyntools.__all__` must be a
decision, made here too (httpx's tests/test_exported_members.py does the same)."""

from __future__ import annotations

import subprocess
import sys

import dyntools

EXPECTED = {
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
}


def test_all_is_pinned() -> None:
    assert set(dyntools.__all__) == EXPECTED
    assert len(dyntools.__all__) == len(EXPECTED)


def test_every_exported_name_resolves_and_says_where_it_lives() -> None:
    for name in dyntools.__all__:
        value = getattr(dyntools, name)
        if name != "__version__":
            assert value.__module__.startswith("dyntools."), name
    assert sorted(dir(dyntools)) == dir(dyntools)
    assert set(dyntools.__all__) <= set(dir(dyntools))


def test_importing_the_package_is_light() -> None:
    """No model SDK, MCP or sandbox machinery on `import dyntools` (the worker imports it)."""
    probe = (
        "import sys, dyntools; "
        "heavy = [m for m in ('anthropic', 'openai', 'mcp', 'httpx', 'RestrictedPython', "
        "'jsonschema_rs', 'structlog', 'dyntools.pipeline', 'dyntools.gate') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""


def test_the_main_entry_points_do_not_import_model_sdks() -> None:
    probe = (
        "import sys; from dyntools import Catalog, Dyntools, ToolSpec; "
        "print(','.join(m for m in ('anthropic', 'openai', 'mcp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""


def test_the_warm_runtime_and_its_pools_are_public(tmp_path) -> None:
    from dyntools.pipeline.runtime import Runtime
    from dyntools.sandbox.limits import SandboxLimits
    from dyntools.sandbox.pool import WorkerPool

    assert (dyntools.Runtime, dyntools.WorkerPool, dyntools.SandboxLimits) == (
        Runtime, WorkerPool, SandboxLimits)
    with dyntools.Dyntools(tmp_path / "reg", pool_size=3) as dt:
        runtime = dt.runtime
        assert isinstance(runtime, Runtime) and runtime is dt.runtime
        assert runtime.settings.size == 3 and runtime.registry is dt.registry
        assert runtime.describe() == {"active": {}, "retiring": []}
