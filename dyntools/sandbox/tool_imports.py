"""Which modules a tool file imports, read from its syntax tree (host side).

Kept apart from `restrict` so the host can tell a worker what to import before it has
imported RestrictedPython (`spec.build_spec`: the worker imports them meanwhile).
"""

from __future__ import annotations

import ast


def is_future_annotations(node: ast.ImportFrom) -> bool:
    return node.module == "__future__" and not node.level and all(
        alias.name == "annotations" and alias.asname is None for alias in node.names
    )


def imported_modules(tree: ast.Module) -> set[str]:
    """Dotted names of the modules the file imports (absolute imports only), and of what a
    `from` import may take as a module (`from urllib import parse`: urllib.parse; a member
    of that spelling is no module, and callers keep only allowed modules).

    The whole tree is read: the gate accepts imports at the top level and in function bodies,
    and the worker imports (before lockdown) only what this returns; a module missing from
    the worker is refused by its import guard.
    """
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif (isinstance(node, ast.ImportFrom) and node.module and not node.level
              and not is_future_annotations(node)):
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names
                         if alias.name != "*")
    return names


def parse_tool(source: str, filename: str) -> ast.Module:
    """The tool's syntax tree; `LoadError` (reason "compile_error") when it does not parse."""
    from dyntools.errors import LoadError

    try:
        return ast.parse(source, filename=filename, mode="exec")
    except (SyntaxError, ValueError) as exc:
        raise LoadError(f"{filename}: {exc}", path=filename) from exc
