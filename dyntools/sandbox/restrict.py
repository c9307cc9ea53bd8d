"""Layer 2 at compile time: RestrictedPython with a small policy of our own (host side).

The host parses and transforms the approved source; it never compiles or runs it. The
transformed tree travels to the worker (see `astcodec`), which compiles it there.

Differences from RestrictedPython's stock policy, each for a reason:
- `x[k] += v` and annotated assignments are accepted: realistic tools use them.
- Annotations are dropped: nothing reads them at run time, and evaluating them would need
  `object`/`type`, which the policy allows only inside annotations.
- Values that come out of a container (subscript, iteration, sequence unpacking) are checked
  by `_getitem_` / `_getiter_`, and calls by `_call_` (the callee's result, `**` keys), only
  where the container or the callee may hold something a library put there: `flow` works
  that out for the whole file. Where the tool built the container from plain data, or calls
  its own function, a builtin or a container method on plain data, the code is plain Python:
  a guard there would check nothing a library wrote and cost a Python call per item
  (1.7-2.8x native on compute-bound loops, see bench/exec.py).
- Functions the file hands to library code (key functions, callbacks) check their arguments
  on entry (`_args_`), and so does the body of a `with ... as` block for its targets.
- Names follow the gate's rule (`dyntools.base.reserved_names`): a name the tool binds may
  start with one underscore (`_helper`, `_seen`); the reserved ones (the guards `_getattr_`,
  `_write_`, ..., RestrictedPython's `_print`, `_tmp0`, dunders) are refused wherever they
  are bound or read, so no parameter, comprehension variable, `except ... as` target, import
  alias or `global` can stand in for a guard. Keyword arguments may not start with an
  underscore (`f(_root=1)`), nor may imported members (`from re import _compile`).
- `type(x) == int` (dyntools.base.type_compare's one shape) compiles to `_type_(x) == int`:
  the worker gives tools no `type` builtin, and `_type_` takes exactly one argument.
- `print` is the worker's capped capture function (a builtin), not RestrictedPython's
  `_print_` collector.
- Attribute writes and deletes compile to `_write_(obj).name`, and `_write_` always ends the
  call with `sandbox_violation`; classes are refused at compile time.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from dyntools.base.reserved_names import underscore_problem
from dyntools.base.type_compare import builtin_type_names, type_comparison
from dyntools.errors import LoadError
from dyntools.sandbox import flow, rp_transformer
from dyntools.sandbox.tool_imports import imported_modules, is_future_annotations, parse_tool
from dyntools.sandbox.worker import astcodec

__all__ = ["ToolPolicy", "imported_modules", "is_future_annotations", "restrict_source"]

# RestrictedPython reserves these for its `_print_` collector (`printed`) and for builtins it
# keeps away from code. This policy has no collector, and the worker's builtins hold neither
# `breakpoint` nor `builtins`, so as local names they are plain variables, as the gate treats
# them: a tax-bracket helper's `breakpoint` parameter, a `printed` list. `print` is the
# worker's capped capture function; a local of that name only hides it from its own scope.
PLAIN_LOCAL_NAMES = frozenset({"printed", "builtins", "breakpoint", "print"})


def _located(new: ast.AST, old: ast.AST) -> Any:
    ast.copy_location(new, old)
    return ast.fix_missing_locations(new)


def _guard_call(name: str, args: list[ast.expr], old: ast.AST) -> Any:
    return _located(ast.Call(func=ast.Name(name, ast.Load()), args=args, keywords=[]), old)


def _slice_value(node: ast.expr) -> ast.expr:
    """`a:b:c` as an expression (`_slice_(a, b, c)`), for `_getitem_`'s key."""
    if isinstance(node, ast.Slice):
        parts: list[ast.expr] = [
            part if part is not None else _located(ast.Constant(None), node)
            for part in (node.lower, node.upper, node.step)
        ]
        call: ast.expr = _guard_call("_slice_", parts, node)
        return call
    if isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts):
        parts_tuple: ast.expr = _located(
            ast.Tuple([_slice_value(e) for e in node.elts], ast.Load()), node)
        return parts_tuple
    return node


def unpack_depth(target: ast.AST) -> int:
    """How many levels of sequence unpacking a target does (`a` 0, `a, (b, c)` 2)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return 1 + max((unpack_depth(e) for e in target.elts), default=0)
    if isinstance(target, ast.Starred):
        return unpack_depth(target.value)
    return 0


def _target_names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


# RestrictedPython's transformer, without the rest of its package (see rp_transformer).
RestrictingNodeTransformer: Any = rp_transformer.load().RestrictingNodeTransformer


class ToolPolicy(RestrictingNodeTransformer):  # type: ignore[misc]
    """RestrictedPython's transformer with the differences listed in the module docstring."""

    def __init__(self, errors: list[str], warnings: list[str], used_names: dict[str, bool],
                 facts: flow.Facts, builtin_types: frozenset[str] = frozenset()) -> None:
        super().__init__(errors, warnings, used_names)
        self.facts = facts
        self.builtin_types = builtin_types  # the names `type(x) == NAME` may compare with

    def check_name(self, node: Any, name: str | None, allow_magic_methods: bool = False) -> None:
        # Magic methods are never allowed (no classes): `allow_magic_methods` is ignored.
        if name is None or name in PLAIN_LOCAL_NAMES:
            return
        if name[:1] == "_":
            problem = underscore_problem(name)
            if problem is not None:
                self.error(node, f'"{name}" {problem}.')
            return
        super().check_name(node, name)

    def check_import_names(self, node: ast.ImportFrom | ast.Import) -> Any:
        # What is imported is a module's public member (the import guard's views hold no
        # other); what it is bound to follows check_name.
        for alias in node.names:
            if any(part.startswith("_") for part in alias.name.split(".")):
                self.error(node, f'"{alias.name}" is not a public module or member.')
        return super().check_import_names(node)

    def visit_Global(self, node: ast.Global) -> Any:
        for name in node.names:
            self.check_name(node, name)
        return self.node_contents_visit(node)

    def _builtin_names(self, node: ast.Compare, call: ast.Call) -> bool:
        """`type` and the type names it is compared with are the builtins, not the file's."""
        other = node.comparators[0] if node.left is call else node.left
        names = other.elts if isinstance(other, ast.Tuple) else [other]
        return all(self.facts.is_builtin(name) for name in [call.func, *names])

    def visit_Compare(self, node: ast.Compare) -> Any:
        call = type_comparison(node, self.builtin_types)
        if call is None or not self._builtin_names(node, call):
            return self.node_contents_visit(node)
        # `type(x) == int`: the argument is visited as usual, the call becomes the worker's
        # one-argument `_type_` (placed here, after the name checks, which refuse `_type_`).
        argument = self.visit(call.args[0])
        guarded = _located(ast.Call(func=ast.Name("_type_", ast.Load()), args=[argument],
                                    keywords=[]), call)
        if node.left is call:
            node.left = guarded
            node.comparators = [self.visit(node.comparators[0])]
        else:
            node.left = self.visit(node.left)
            node.comparators = [guarded]
        return node

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
        guarded = isinstance(node.ctx, ast.Load) and self.facts.tainted(node.value)
        node = self.node_contents_visit(node)
        if not guarded:
            return node
        return _guard_call("_getitem_", [node.value, _slice_value(node.slice)], node)

    def guard_iter(self, node: Any) -> Any:
        # A loop over data the tool built is plain Python (see the module docstring).
        guarded = self.facts.tainted(node.iter)
        depth = unpack_depth(node.target)
        node = self.node_contents_visit(node)
        if guarded:
            node.iter = _guard_call("_getiter_", [node.iter, ast.Constant(depth)], node.iter)
        return node

    def visit_Assign(self, node: ast.Assign) -> Any:
        depth = max(unpack_depth(t) for t in node.targets)
        guarded = depth > 0 and self.facts.tainted(node.value)
        node = self.node_contents_visit(node)
        if guarded:
            node.value = _guard_call("_getiter_", [node.value, ast.Constant(depth - 1)],
                                     node.value)
        return node

    def visit_With(self, node: ast.With) -> Any:
        node = self.node_contents_visit(node)
        names = [n for item in node.items if item.optional_vars is not None
                 for n in _target_names(item.optional_vars)]
        if names:
            check = _guard_call("_args_", [ast.Name(n, ast.Load()) for n in names], node)
            node.body.insert(0, _located(ast.Expr(check), node))
        return node

    def visit_Call(self, node: ast.Call) -> Any:
        guarded = self.facts.call_guarded(node)
        for keyword in node.keywords:
            if keyword.arg is not None and keyword.arg.startswith("_"):
                self.error(node, f'"{keyword.arg}" is an invalid keyword argument name '
                                 'because it starts with "_".')
        visited = super().visit_Call(node)
        assert isinstance(visited, ast.Call)
        node = visited
        if isinstance(node.func, ast.Name) and node.func.id == "_apply_":
            return node  # `f(*a, **k)`: `_apply_` is the call guard
        if guarded:
            node.args.insert(0, node.func)
            node.func = _located(ast.Name("_call_", ast.Load()), node)
        return node

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
        callback = self.facts.is_callback(node)
        self.check_name(node, node.name)
        self.check_function_argument_names(node)
        node = self.node_contents_visit(node)
        if callback:
            # Library code calls it: what it passes is checked before the body runs.
            args = node.args
            names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                      *([args.vararg] if args.vararg else []),
                                      *([args.kwarg] if args.kwarg else [])]]
            if names:
                check = _guard_call("_args_", [ast.Name(n, ast.Load()) for n in names], node)
                node.body.insert(0, _located(ast.Expr(check), node.body[0]))
        return node

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


def restrict_source(
    source: str,
    filename: str,
    *,
    constructors: Callable[[set[str]], frozenset[tuple[str, str]]] | None = None,
    tree: ast.Module | None = None,
    builtins: frozenset[str] = frozenset(),
) -> tuple[Any, set[str]]:
    """Parse (unless `tree` is the source already parsed, which this transforms in place)
    and transform `source`; return the encoded tree for the worker and the names of the
    modules it imports. `builtins`: the policy's allowed builtins (the builtin types among
    them are what `type(x) == NAME` may compare with).

    Raises `LoadError` (station "load", reason "compile_error") when the source does not
    parse or the policy refuses it.
    """
    if tree is None:
        tree = parse_tool(source, filename)
    imports = imported_modules(tree)
    errors: list[str] = []
    warnings: list[str] = []
    used_names: dict[str, bool] = {}
    try:
        facts = flow.analyse(tree, constructors(imports) if constructors else frozenset())
        policy = ToolPolicy(errors, warnings, used_names, facts, builtin_type_names(builtins))
        tree = policy.visit(tree)
    except RecursionError as exc:
        raise LoadError(f"{filename}: nested too deeply to analyse", path=filename) from exc
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
