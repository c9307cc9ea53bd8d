"""What a worker needs to know about one tool version, prepared once on the host side."""

from __future__ import annotations

import importlib
import marshal
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dyntools.errors import LoadError
from dyntools.sandbox.limits import LAYERS, SandboxLimits
from dyntools.sandbox.tool_imports import imported_modules, parse_tool

if TYPE_CHECKING:
    import ast

    from dyntools.gate.policy import Policy

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
# The dyntools-provided modules the worker knows how to build (sandbox/worker/process.py).
HOST_MODULES = frozenset({"host"})
# Layers the test suite may switch off to show each remaining layer alone. Reachable only
# through a keyword argument of the host API; the CLI and tool code cannot set it.
TESTABLE_SKIPS = frozenset(LAYERS)


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerSpec:
    """The init message for workers of one tool version, plus host-side settings."""

    source_path: str
    module_name: str
    limits: SandboxLimits
    require_layers: frozenset[str]
    init_message: bytes = field(repr=False)
    # The operator's opt-in below the default minimum (sandbox/minimum.py)
    allow_weaker_sandbox: bool = False


def stdlib_paths() -> list[str]:
    """The standard library the worker imports from: `python -I -S` puts no site-packages
    on its path, only the base installation's library, its zip and its lib-dynload."""
    paths = {os.path.dirname(os.__file__)}
    paths.update(p for p in sys.path if p.startswith(sys.base_prefix)
                 and os.path.basename(p) not in {"site-packages", "dist-packages"})
    return sorted(paths)


def needed_paths(*, zoneinfo: bool) -> list[str]:
    """What a worker may read after lockdown: the standard library (C code imports helpers
    lazily, e.g. `_strptime`), system libraries (lazily loaded by C extensions and glibc),
    and time-zone data when the tool imports `zoneinfo`. The tool file is not among them:
    the worker receives the tool's syntax tree and source lines over its pipe and never
    opens it. Neither are site-packages, the dyntools package (imported before lockdown) or
    the interpreter's other files."""
    paths = {*stdlib_paths(), *SYSTEM_LIBRARY_PATHS}
    if zoneinfo:
        paths.update(ZONEINFO_PATHS)
    return sorted(p for p in paths if os.path.lexists(p))


def _resolve(path: str, links: dict[str, str], depth: int = 0) -> str | None:
    """`path` with every symlink in it resolved; each link met is recorded in `links`."""
    if depth > 40:
        return None
    parts = [part for part in path.split("/") if part and part != "."]
    current = ""
    for index, part in enumerate(parts):
        if part == "..":
            current = os.path.dirname(current) if current else ""
            continue
        candidate = current + "/" + part
        if os.path.islink(candidate):
            target = os.readlink(candidate)
            links[candidate] = target
            base = target if target.startswith("/") else os.path.join(current or "/", target)
            rest = "/".join(parts[index + 1:])
            return _resolve(os.path.normpath(os.path.join(base, rest) if rest else base),
                            links, depth + 1)
        current = candidate
    return current or "/"


def minimal_root(paths: list[str]) -> dict[str, list[Any]]:
    """The plan for the worker's minimal root: directories and files bound read-only at
    their own (resolved) paths, and the symlinks that lead to them (`/lib -> usr/lib`)."""
    links: dict[str, str] = {}
    resolved: set[str] = set()
    for path in paths:
        real = _resolve(path, links)
        if real is not None and real != "/" and os.path.exists(real):
            resolved.add(real)
    tops = sorted(p for p in resolved
                  if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in resolved))
    dirs = [p for p in tops if os.path.isdir(p)]
    files = [p for p in tops if not os.path.isdir(p)]

    def inside_a_bind(link: str) -> bool:
        return any(link.startswith(top + "/") for top in tops)

    return {
        "dirs": dirs,
        "files": files,
        "links": sorted([link, target] for link, target in links.items()
                        if not inside_a_bind(link)),
    }


def _plain_tree(tree: Any) -> tuple[Any, set[str]]:
    """Test-only (the `restricted` layer switched off): the tool's syntax tree as written,
    without RestrictedPython's transformation, to show what the other layers hold alone."""
    from dyntools.sandbox.worker import astcodec

    return astcodec.encode(tree), imported_modules(tree)


def worker_modules(imported: Iterable[str], policy: Policy) -> set[str]:
    """What the worker imports for a file that imports `imported`: each name, and for a
    package that is not itself allowed (`import urllib`), its allowed submodules, of which
    the worker's view of the package holds exactly those (urllib.parse, never request)."""
    wanted = set(imported)
    for name in imported:
        if name not in policy.modules and policy.is_package_prefix(name):
            wanted.update(module for module in policy.python_modules
                          if module.startswith(name + "."))
    return wanted


def constructors(policy: Policy, modules: Iterable[str]) -> frozenset[tuple[str, str]]:
    """(module, member) for the allowed members of `modules` that are plain classes: calling
    one by its imported name makes an instance of it, so `flow` need not guard that call."""
    found: set[tuple[str, str]] = set()
    for name in modules:
        # Python's modules only: a dyntools-provided one (`host`) is not importable here by
        # its name, and whatever `host` the host side's sys.path holds is not it.
        allowed = policy.python_modules.get(name)
        if allowed is None:
            continue
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        found.update((name, member) for member in allowed.members
                     if type(getattr(module, member, None)) is type)
    return frozenset(found)


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
    on_imports: Callable[[list[str]], None] | None = None,
    allow_weaker_sandbox: bool = False,
    tree: ast.Module | None = None,
) -> WorkerSpec:
    """Read, parse and transform the source (never compile it) and prepare the init message.

    Workers of the spec refuse to run tool code below the default minimum
    (sandbox/minimum.py) unless `allow_weaker_sandbox`. `skip_layers` (the test suite's
    seam) is not an opt-in of its own: a worker that skips a layer of the minimum is
    refused like one on a host without it, unless the caller also opts in (as
    `run_unchecked(disable=...)` and `exec --disable-layer` do).

    `on_imports` is told the allowed modules the tool imports as soon as they are known,
    before the transformation (a started interpreter imports them meanwhile: `Interpreter.
    preimport`).

    `tree`: the syntax tree to run instead of `source` parsed (a code-mode script, wrapped
    host-side into `run(inputs)`: dyntools/codemode/wrap.py); `source` still gives the lines
    a traceback quotes, which the tree's positions point into. It is transformed in place."""
    path = str(Path(source_path).resolve())
    if source is None:
        try:
            source = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise LoadError(f"cannot read {path}: {exc}", path=path) from exc
    unknown = set(skip_layers) - TESTABLE_SKIPS
    if unknown:
        raise ValueError(f"unknown layers to skip: {sorted(unknown)}")
    parsed = tree if tree is not None else parse_tool(source, path)
    # Only what the tool imports, and only if allowed: every module costs start-up time.
    # A dyntools-provided module (`host`) is never imported by name in the worker (a `host`
    # on its sys.path would be someone else's): the worker builds it (sandbox/worker/hostapi.py).
    python = policy.python_modules
    provided = policy.provided_modules & HOST_MODULES
    allowed = {name: sorted(policy.modules[name].members)
               for name in sorted(worker_modules(imported_modules(parsed), policy))
               if name in python or name in provided}
    if on_imports is not None:
        on_imports(list(allowed))  # `host` too: the worker then loads its stubs' module
    from dyntools.sandbox.seccomp_filter import SeccompUnavailable, seccomp_program

    try:
        program: bytes | None = seccomp_program()
        seccomp_missing = ""
    except SeccompUnavailable as exc:
        program, seccomp_missing = None, str(exc)
    if "restricted" in skip_layers:
        tree, _ = _plain_tree(parsed)
    else:
        # Imported here, not at the top: a pool starts its first interpreter before it
        # builds its spec, and RestrictedPython's import (4 ms) then runs beside that start.
        from dyntools.sandbox.restrict import restrict_source

        tree, _ = restrict_source(
            source, path, constructors=lambda names: constructors(policy, names), tree=parsed,
            builtins=policy.builtins)
    cpu = limits.cpu_seconds
    root = minimal_root(needed_paths(
        zoneinfo=any(name == "zoneinfo" or name.startswith("zoneinfo.") for name in allowed)))
    message = {
        "module": module_name,
        "filename": path,
        "lines": source.splitlines(),
        "tree": tree,
        "modules": allowed,
        # class -> the only attributes its instances expose (the worker's attribute guard).
        "instance_attributes": {
            name: {member: sorted(attributes) for member, attributes
                   in policy.modules[name].instance_attributes.items()}
            for name in allowed if policy.modules[name].instance_attributes},
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
        "max_host_answer_bytes": limits.max_host_answer_bytes,
        "read_paths": root["dirs"] + root["files"],
        "root": root,
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
        allow_weaker_sandbox=bool(allow_weaker_sandbox),
    )
