"""The walls of the house (docs/architecture.md), computed from the real import graph: every
`import` statement of every module of dyntools/, at the top, inside functions and under
`if TYPE_CHECKING:`. A new edge through a wall fails here; moving a wall is a decision made in
this file and in the document together (a test holds the two to the same lists).

    1. the gate imports only its own modules, its policy and findings, and the leaves below;
    2. the sandbox worker imports nothing from generators, registry, SDKs or click: exactly
       the worker-side modules below, and nothing outside the standard library;
    3. the registry does not import generators (nor anything that does);
    4. nothing imports the CLI (only `python -m dyntools`, which is the CLI);
    and no module imports itself back through others (no circle).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import dyntools

PACKAGE = Path(dyntools.__file__).parent
DOC = PACKAGE.parent / "docs" / "architecture.md"
STDLIB = frozenset(sys.stdlib_module_names)

# 0. The shared leaves are a folder: each module of dyntools/base/ imports nothing of dyntools
#    but other modules of that folder and the public error tree (which imports nothing).
BASE = "dyntools.base"
ERRORS = "dyntools.errors"
# 1. The gate is a folder too: what it loads of dyntools is gate/ and base/, and its one
#    third-party library.
GATE = "dyntools.gate"
GATE_THIRD_PARTY = frozenset({"jsonschema_rs"})
# 2. The worker side of the sandbox is the folder dyntools/sandbox/worker/: nothing under it
#    imports anything of dyntools outside it (the parent packages `dyntools` and
#    `dyntools.sandbox` are loaded on the way in and import nothing but each other), nor
#    anything outside the standard library.
WORKER_PACKAGE = "dyntools.sandbox.worker"
WORKER = "dyntools.sandbox.worker.process"
WORKER_PARENTS = frozenset({"dyntools", "dyntools.sandbox"})
WORKER_NEVER = ("dyntools.generators", "dyntools.registry", "dyntools.pipeline",
                "dyntools.cli", "anthropic", "openai", "mcp", "click", "httpx", "structlog")
# 3. and 4.
REGISTRY, GENERATORS, CLI = "dyntools.registry", "dyntools.generators", "dyntools.cli"
CLI_ENTRY = "dyntools.__main__"
# Circles that exist today, each with who breaks it and how; any other circle fails, and so
# does a listed one that changed or is gone (then its line goes).
KNOWN_CIRCLES: dict[frozenset[str], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))
           if "templates" not in p.relative_to(PACKAGE).parts}


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(name: str) -> Iterator[tuple[str, str]]:
    """(imported module, where: "module", "function" or "typing") for every import statement.
    `from package import submodule` is an edge to the submodule."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def walk(node: ast.AST, where: str) -> Iterator[tuple[str, str]]:
        for child in ast.iter_child_nodes(node):
            here = where
            if isinstance(child, ast.If) and _type_checking(child.test):
                for statement in child.body:
                    yield from walk(ast.Module(body=[statement], type_ignores=[]), "typing")
                for statement in child.orelse:
                    yield from walk(ast.Module(body=[statement], type_ignores=[]), where)
                continue
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and where == "module":
                here = "function"
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, here
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    base = ".".join([*up, *([base] if base else [])])
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    yield (full if full in MODULES else base), here
            yield from walk(child, here)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), "module")


GRAPH = {name: sorted(set(_imports(name))) for name in MODULES}


def _inside(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _closure(start: str) -> set[str]:
    """Every module importing `start` can load (its parents too), dyntools and third-party."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        todo += [target for target, where in GRAPH.get(name, []) if where != "typing"]
    return seen


def _third_party(modules: set[str] | list[str]) -> set[str]:
    tops = {m.split(".")[0] for m in modules}
    return {t for t in tops if t not in STDLIB and t != "dyntools" and t != "__future__"}


def test_the_graph_is_the_real_one() -> None:
    """The parser sees what Python sees: a known module-level edge, a function-level one and
    a TYPE_CHECKING one, and every dyntools module it names exists."""
    assert ("dyntools.gate.policy", "module") in GRAPH["dyntools.registry.state"]
    assert ("dyntools.registry.watch", "function") in GRAPH["dyntools.registry.core"]
    assert ("dyntools.registry.watch", "typing") in GRAPH["dyntools.pipeline.runtime"]
    named = {t for edges in GRAPH.values() for t, _ in edges if _inside(t, "dyntools")}
    assert sorted(named - set(MODULES)) == []


def test_wall_0_base_is_leaves() -> None:
    """Every module of dyntools/base/ imports only base/ and the error tree; the error tree
    imports nothing of dyntools."""
    crossings = [
        f"{name} -> {target}"
        for name, edges in GRAPH.items() if _inside(name, BASE)
        for target, _ in edges
        if _inside(target, "dyntools") and not _inside(target, BASE) and target != ERRORS
    ]
    assert crossings == []
    assert [t for t, _ in GRAPH[ERRORS] if _inside(t, "dyntools")] == []


def test_wall_1_the_gate_imports_only_gate_and_base() -> None:
    crossings = [
        f"{name} -> {target}"
        for name, edges in GRAPH.items() if _inside(name, GATE)
        for target, _ in edges
        if _inside(target, "dyntools") and not _inside(target, GATE)
        and not _inside(target, BASE)
    ]
    assert crossings == []
    for name in GRAPH:
        if _inside(name, GATE):
            reached = _closure(name)
            beyond = sorted(m for m in reached if _inside(m, "dyntools") and m != "dyntools"
                            and not _inside(m, GATE) and not _inside(m, BASE))
            assert beyond == [], f"{name} reaches {beyond}"
            assert sorted(_third_party(reached) - GATE_THIRD_PARTY) == [], name


def test_wall_2_nothing_under_the_worker_imports_outside_it() -> None:
    for name in GRAPH:
        if not _inside(name, WORKER_PACKAGE):
            continue
        loaded = _closure(name)
        outside = sorted(m for m in loaded if _inside(m, "dyntools")
                         and not _inside(m, WORKER_PACKAGE) and m not in WORKER_PARENTS)
        assert outside == [], f"{name} reaches {outside}"
        assert sorted(_third_party(loaded)) == [], name


def test_wall_2_holds_at_run_time_too() -> None:
    """importlib, not the parser: what the worker's entry point really loads (a lazy
    `__getattr__` reaching elsewhere would show here)."""
    probe = ("import json, sys; before = set(sys.modules); import dyntools.sandbox.worker.process; "
             "print(json.dumps(sorted(set(sys.modules) - before)))")
    loaded = json.loads(subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True,
                                       text=True, check=True, timeout=60).stdout)
    assert WORKER in loaded
    assert sorted(m for m in loaded if _inside(m, "dyntools")
                  and not _inside(m, WORKER_PACKAGE) and m not in WORKER_PARENTS) == []
    assert [m for m in loaded if any(_inside(m, never) for never in WORKER_NEVER)] == []


def test_wall_3_the_registry_does_not_import_generators() -> None:
    reaching = sorted(
        name for name in MODULES if _inside(name, REGISTRY)
        if any(_inside(m, GENERATORS) for m in _closure(name))
    )
    direct = [f"{n} -> {t}" for n, e in GRAPH.items() if _inside(n, REGISTRY)
              for t, _ in e if _inside(t, GENERATORS)]
    assert (reaching, direct) == ([], [])


def test_wall_4_nothing_imports_the_cli() -> None:
    importers = sorted({name for name, edges in GRAPH.items()
                        if not _inside(name, CLI) and name != CLI_ENTRY
                        for target, _ in edges if _inside(target, CLI)})
    assert importers == []


def _is_root_reexport(name: str, where: str) -> bool:
    """The root package's lazy re-export block: `dyntools/__init__.py` names every public
    class under `if TYPE_CHECKING:` for the type checker, and resolves them on first use."""
    return name == "dyntools" and where == "typing"


def test_no_module_imports_itself_back() -> None:
    """No circle, counting function-level and TYPE_CHECKING imports too (a package's
    `__init__` importing its own submodules inside a function included); only the root
    package's lazy re-export block is not counted."""
    adjacency: dict[str, set[str]] = {}
    for name, edges in GRAPH.items():
        adjacency[name] = {
            target for target, where in edges
            if target in MODULES and target != name and not _is_root_reexport(name, where)
        }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(adjacency[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(adjacency):
        if node not in index:
            connect(node)
    found = {frozenset(circle) for circle in circles}
    assert sorted(sorted(c) for c in found - set(KNOWN_CIRCLES)) == []
    assert sorted(sorted(c) for c in set(KNOWN_CIRCLES) - found) == [], "gone: drop its line"


def test_no_private_cpython_module_outside_the_worker() -> None:
    """Outside dyntools/sandbox/worker/ (which runs in the sandbox, where its start-up is the
    cold call's budget), no module imports a private CPython module (a top-level name that
    starts with an underscore, `__future__` aside), at the top, in a function or for the type
    checker: those change without notice between Python versions, and each has a public
    module over it (ast, json, signal, threading, hashlib, ...)."""
    private = sorted(
        f"{name} -> {target} ({where})"
        for name, edges in GRAPH.items() if not _inside(name, WORKER_PACKAGE)
        for target, where in edges
        if target.split(".")[0].startswith("_") and target != "__future__"
    )
    assert private == []


def _documented(heading: str) -> set[str]:
    """The `dyntools...` names listed under a heading of docs/architecture.md."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`(dyntools(?:\.[a-z_]+)*)`", section))


def _folder(package: str) -> set[str]:
    return {name for name in MODULES if _inside(name, package) and name != package}


def test_the_document_lists_what_this_test_enforces() -> None:
    assert _documented("The shared leaves") == _folder(BASE) | {ERRORS}
    assert _documented("The worker's modules") == _folder(WORKER_PACKAGE)
