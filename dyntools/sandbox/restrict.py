"""Layer 2 at compile time: RestrictedPython with a small policy of our own (host side).

The host parses and transforms the approved source; it never compiles or runs it. The
transformed tree travels to the worker (see `astcodec`), which compiles it there.

Differences from RestrictedPython's stock policy, each for a reason:
- `x[k] += v` and annotated assignments are accepted: realistic tools use them.
- Annotations are dropped: nothing reads them at run time, and evaluating them would need
  `object`/`type`, which the policy allows only inside annotations.
- Subscripts, iteration, sequence unpacking and in-place operators compile to plain Python.
  Item access and iteration cannot reach attributes, frames or modules, so `_getitem_`,
  `_write_` on items, `_getiter_`, `_unpack_sequence_` and `_inplacevar_` wrappers would cost
  time (25-60% on compute-bound loops, see bench/exec.py) without guarding anything: the
  values a tool can reach are guarded where they enter, at the import guard and `_getattr_`.
- `print` is the worker's capped capture function (a builtin), not RestrictedPython's
  `_print_` collector.
- Attribute writes and deletes compile to `_write_(obj).name`, and `_write_` always ends the
  call with `sandbox_violation`; classes are refused at compile time.
"""

from __future__ import annotations

import ast
from typing import Any

from RestrictedPython.transformer import RestrictingNodeTransformer

from dyntools.errors import LoadError
from dyntools.sandbox import astcodec

# RestrictedPython reserves these for its `_print_` collector (`printed`) and for builtins it
# keeps away from code. This policy has no collector, and the worker's builtins hold neither
# `breakpoint` nor `builtins`, so as local names they are plain variables, as the gate treats
# them: a tax-bracket helper's `breakpoint` parameter, a `printed` list. `print` is the
# worker's capped capture function; a local of that name only hides it from its own scope.
PLAIN_LOCAL_NAMES = frozenset({"printed", "builtins", "breakpoint", "print"})


class ToolPolicy(RestrictingNodeTransformer):
    """RestrictedPython's transformer with the differences listed in the module docstring."""

    def check_name(self, node: Any, name: str | None, allow_magic_methods: bool = False) -> None:
        if name not in PLAIN_LOCAL_NAMES:
            super().check_name(node, name, allow_magic_methods)

    def visit_Name(self, node: ast.Name) -> Any:
        # No `_print_` collector: reading `print` gives the worker's capped print builtin
        # (or the tool's own local of that name).
        if isinstance(node.ctx, ast.Load):
            self.used_names[node.id] = True
            if node.id == "print":
                return node
        self.check_name(node, node.id)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        return self.node_contents_visit(node)

    def guard_iter(self, node: Any) -> Any:
        # `for x in seq` already calls iter(seq) (GET_ITER); wrapping it in `_getiter_ = iter`
        # would guard nothing and cost a global lookup and a call per loop (1.19x on the
        # primes bench instead of ~1.0x).
        return self.node_contents_visit(node)

    def visit_Assign(self, node: ast.Assign) -> Any:
        return self.node_contents_visit(node)

    def visit_With(self, node: ast.With) -> Any:
        return self.node_contents_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        node = self.node_contents_visit(node)
        if isinstance(node.target, ast.Attribute):
            self.error(node, "Augmented assignment of attributes is not allowed.")
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        node = self.node_contents_visit(node)
        if node.value is None:
            return ast.copy_location(ast.Pass(), node)
        if not node.simple and isinstance(node.target, ast.Attribute):
            self.error(node, "Assignment of attributes is not allowed.")
        assign = ast.Assign(targets=[node.target], value=node.value)
        return ast.copy_location(assign, node)

    def visit_arg(self, node: ast.arg) -> Any:
        node.annotation = None
        return self.node_contents_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        node.returns = None
        self.check_name(node, node.name)
        self.check_function_argument_names(node)
        return self.node_contents_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        if is_future_annotations(node):
            # A compiler directive, not an import: annotations are dropped here anyway, so
            # it has nothing left to do at run time, where the import guard would refuse
            # `__future__`. The gate accepts exactly this form.
            return None
        return super().visit_ImportFrom(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        self.error(node, "Classes are not allowed in tool files.")
        return node

    def visit_Module(self, node: ast.Module) -> Any:
        return self.node_contents_visit(node)


def is_future_annotations(node: ast.ImportFrom) -> bool:
    return node.module == "__future__" and not node.level and all(
        alias.name == "annotations" and alias.asname is None for alias in node.names
    )


def imported_modules(tree: ast.Module) -> set[str]:
    """Dotted names of the modules the file imports (absolute imports only).

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
    return names


def restrict_source(source: str, filename: str) -> tuple[Any, set[str]]:
    """Parse and transform `source`; return the encoded tree for the worker and the names of
    the modules it imports.

    Raises `LoadError` (station "load", reason "compile_error") when the source does not
    parse or the policy refuses it.
    """
    try:
        tree = ast.parse(source, filename=filename, mode="exec")
    except (SyntaxError, ValueError) as exc:
        raise LoadError(f"{filename}: {exc}", path=filename) from exc
    imports = imported_modules(tree)
    errors: list[str] = []
    warnings: list[str] = []
    used_names: dict[str, bool] = {}
    policy = ToolPolicy(errors, warnings, used_names)
    tree = policy.visit(tree)
    if errors:
        raise LoadError(
            f"{filename}: refused by the restricted-code policy: {'; '.join(errors)}",
            path=filename,
            errors=list(errors),
        )
    # No ast.fix_missing_locations pass (0.3 ms a file): RestrictedPython places every node it
    # makes with copy_locations, and ours use ast.copy_location. A node without a position
    # would fail the worker's compile, refusing the file, never running it unchecked.
    return astcodec.encode(tree), imports
