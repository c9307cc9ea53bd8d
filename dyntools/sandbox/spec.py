"""What a worker needs to know about one tool version, prepared once on the host side."""

from __future__ import annotations

import marshal
import sys
from dataclasses import dataclass, field
from pathlib import Path

from dyntools.errors import LoadError
from dyntools.gate.policy import Policy
from dyntools.sandbox.limits import LAYERS, SandboxLimits
from dyntools.sandbox.restrict import restrict_source

# Escape routes published against peers (DESIGN.md §3): refused by the runtime guards whatever
# object they are reached through, in addition to every member the policy excludes.
KNOWN_ESCAPES: tuple[tuple[str, str], ...] = (
    ("operator", "attrgetter"),
    ("operator", "methodcaller"),
    ("string", "Formatter"),
    ("typing", "get_type_hints"),
    ("typing", "ForwardRef"),
    ("functools", "singledispatch"),
    ("functools", "singledispatchmethod"),
    ("functools", "update_wrapper"),
    ("functools", "wraps"),
    ("uuid", "uuid1"),
    ("uuid", "getnode"),
    ("zoneinfo", "reset_tzpath"),
    ("abc", "ABCMeta"),
    ("enum", "Enum"),
    ("enum", "EnumMeta"),
)

ZONEINFO_PATHS = ("/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo",
                  "/etc/zoneinfo")
SYSTEM_LIBRARY_PATHS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib",
                        "/etc/ld.so.cache")
# Layers the test suite may switch off to show each remaining layer alone. Reachable only
# through a keyword argument of the host API; the CLI and tool code cannot set it.
TESTABLE_SKIPS = frozenset(LAYERS)


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """The init message for workers of one tool version, plus host-side settings."""

    source_path: str
    module_name: str
    limits: SandboxLimits
    require_layers: frozenset[str]
    init_message: bytes = field(repr=False)


def read_paths(source_path: str, policy: Policy) -> list[str]:
    """What Landlock lets a worker read: the Python install, system libraries, the tool file,
    and time-zone data when `zoneinfo` is allowed."""
    paths = {sys.base_prefix, sys.prefix, *SYSTEM_LIBRARY_PATHS, source_path}
    paths.update(p for p in sys.path if p and p.startswith((sys.prefix, sys.base_prefix)))
    if any(name == "zoneinfo" or name.startswith("zoneinfo.") for name in policy.modules):
        paths.update(ZONEINFO_PATHS)
    return sorted(p for p in paths if Path(p).exists())


def escape_members(policy: Policy) -> list[tuple[str, str]]:
    escapes = set(KNOWN_ESCAPES)
    for name, module in policy.modules.items():
        escapes.update((name, member) for member in module.excluded)
    return sorted(escapes)


def build_spec(
    source_path: Path | str,
    *,
    module_name: str,
    policy: Policy,
    limits: SandboxLimits,
    require_layers: frozenset[str] = frozenset(),
    skip_layers: frozenset[str] = frozenset(),
    source: str | None = None,
) -> WorkerSpec:
    """Read, parse and transform the source (never compile it) and prepare the init message."""
    path = str(Path(source_path).resolve())
    if source is None:
        try:
            source = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise LoadError(f"cannot read {path}: {exc}", path=path) from exc
    unknown = set(skip_layers) - TESTABLE_SKIPS
    if unknown:
        raise ValueError(f"unknown layers to skip: {sorted(unknown)}")
    from dyntools.sandbox.seccomp_filter import SeccompUnavailable, seccomp_program

    try:
        program: bytes | None = seccomp_program()
        seccomp_missing = ""
    except SeccompUnavailable as exc:
        program, seccomp_missing = None, str(exc)
    tree, imports = restrict_source(source, path)
    # Only what the tool imports, and only if allowed: every module costs start-up time.
    allowed = {name: sorted(policy.modules[name].members)
               for name in sorted(imports) if name in policy.modules}
    cpu = limits.cpu_seconds
    message = {
        "module": module_name,
        "filename": path,
        "lines": source.splitlines(),
        "tree": tree,
        "modules": allowed,
        "builtins": sorted(policy.builtins),
        "denied_attributes": sorted(policy.denied_attributes),
        "denied_prefixes": sorted(policy.denied_attribute_prefixes),
        "escapes": escape_members(policy),
        "denied_modules": sorted(policy.denied_modules),
        "memory_mb": limits.memory_mb,
        "cpu_seconds": cpu,
        "cpu_lifetime": cpu * 10_000,
        "max_open_files": limits.max_open_files,
        "max_output_bytes": limits.max_output_bytes,
        "max_result_bytes": limits.max_result_bytes,
        "max_params_bytes": limits.max_params_bytes,
        "read_paths": read_paths(path, policy),
        "seccomp": program,
        "seccomp_missing": seccomp_missing,
        "skip": sorted(skip_layers),
    }
    return WorkerSpec(
        source_path=path,
        module_name=module_name,
        limits=limits,
        require_layers=frozenset(require_layers),
        init_message=marshal.dumps(message),
    )
