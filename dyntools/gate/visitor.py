"""The deny-by-default walk over a tool file's syntax tree.

Every node class the gate knows has a handler; anything else is refused (DT901), so a syntax
added by a newer Python is not trusted before someone reviews it. Names are resolved the way
Python resolves them (a name bound anywhere in a function is local to the whole function;
comprehensions have their own scope; a walrus binds in the enclosing function), because the
rules depend on what a name really is: `input` may be a local variable, the `input` builtin
is refused; `re.sub` is an allowed member, `re` alone is a module that may not be passed around.

Loads are recorded while walking and resolved when their scope closes, so the walk is a single
pass. The walk is recursive but bounded by the policy's `max_depth`, far below the interpreter's
recursion limit, and stops at `max_nodes`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from dyntools.base.reserved_names import is_reserved, underscore_problem
from dyntools.base.type_compare import builtin_type_names, type_comparison
from dyntools.gate.findings import MAX_FINDINGS_PER_CODE, Finding
from dyntools.gate.hostuse import HostUse
from dyntools.gate.literals import NotLiteral, measured_literal
from dyntools.gate.policy import Policy

if TYPE_CHECKING:
    from typing import Any

# Node classes that carry no code of their own (operators, contexts): never visited.
INERT_NODES: frozenset[type[ast.AST]] = frozenset(
    {
        ast.Load, ast.Store, ast.Del,
        ast.And, ast.Or,
        ast.Add, ast.Sub, ast.Mult, ast.MatMult, ast.Div, ast.Mod, ast.Pow, ast.LShift,
        ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd, ast.FloorDiv,
        ast.Invert, ast.Not, ast.UAdd, ast.USub,
        ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
        ast.TypeIgnore,
    }
)


# Where a name is read, when that decides what it may be (Load.role).
PLAIN, ANNOTATION, TYPE_CHECK, DECORATOR, TYPE_OF, TYPE_NAME = 0, 1, 2, 3, 4, 5
# `isinstance(x, T)` / `issubclass(C, T)`: T is in a type-check position.
TYPE_CHECK_CALLS = frozenset({"isinstance", "issubclass"})
# functools' memoisation decorators: the only decorators a tool may use (on a def other
# than run), bare or called with literal arguments (`memo_arguments`).
MEMO_DECORATORS = frozenset({"functools.lru_cache", "functools.cache"})
MEMO_ATTRIBUTES = frozenset({"lru_cache", "cache"})
# The metadata constants: never rebound through `global`.
METADATA_NAMES = frozenset({"NAME", "DESCRIPTION", "PARAMS", "EXAMPLES", "CAPABILITIES"})


class Load:
    __slots__ = ("chain", "name", "node", "role")

    def __init__(self, name: str, node: ast.Name, chain: list[ast.Attribute],
                 role: int) -> None:
        self.name = name
        self.node = node
        self.chain = chain
        self.role = role  # PLAIN, ANNOTATION, TYPE_CHECK or DECORATOR


class Scope:
    __slots__ = ("bound", "globals", "has_yield", "imports", "kind", "loads", "parent",
                 "rebound")

    def __init__(self, kind: str, parent: Scope | None) -> None:
        self.kind = kind  # "module", "function", "lambda", "comprehension", "class"
        self.parent = parent
        self.bound: set[str] = set()
        self.loads: list[Load] = []
        self.has_yield = False
        # Names this scope binds by an import (the module scope's dict is GateVisitor.imports).
        self.imports: dict[str, ImportBinding] = {}
        # Import names this scope also binds some other way (or imports twice): such a name
        # is not known to be the imported member where it is read.
        self.rebound: set[str] = set()
        # Names a `global` statement of this (function) scope declares.
        self.globals: set[str] = set()


class ImportBinding(NamedTuple):
    """A name bound by an import (at the top level or in a function body): a module, a
    package prefix, or a member."""

    kind: str  # "module", "package", "member", "refused"
    dotted: str
    lineno: int


_DISPLAYS = frozenset({ast.Dict, ast.List, ast.Tuple, ast.Set})
_NO_CHAIN: list[ast.Attribute] = []  # shared, never mutated: most loads are bare names
_Constant, _Name, _Load, _Call = ast.Constant, ast.Name, ast.Load, ast.Call


class _Abort(Exception):
    pass


class GateVisitor:
    def __init__(self, policy: Policy, lines: list[str], ascii_only: bool,
                 track_host: bool = True, scan_globals: bool = True) -> None:
        self.policy = policy
        self.lines = lines
        self.ascii_only = ascii_only
        self.findings: list[Finding] = []
        self.nodes = 0
        self.depth = 0
        self.depth_reported = False
        self.max_nodes = policy.limits.max_nodes
        self.max_depth = policy.limits.max_depth
        self.denied_call_heads = {key.split(".", 1)[0] for key in policy.denied_calls}
        self.denied_call_keys = tuple(policy.denied_calls)
        self.denied_attributes = policy.denied_attributes
        self.denied_prefixes = tuple(policy.denied_attribute_prefixes)
        self.module_scope = Scope("module", None)
        self.scope = self.module_scope
        self.imports: dict[str, ImportBinding] = self.module_scope.imports
        self.function_yields: dict[ast.FunctionDef | ast.AsyncFunctionDef, bool] = {}
        self._dispatch = _dispatch_table(HANDLED_NODES)
        self.code_counts: dict[str, int] = {}
        # Imports and uses of dyntools-provided modules (`host`), for dyntools.gate.hostuse.
        # `track_host` False promises the file never names one (its text does not hold the
        # name), so calls need not be remembered.
        self.provided = policy.provided_modules
        self.track_host = track_host and bool(self.provided)
        self.host_imports: list[ast.stmt] = []
        self.host_uses: list[HostUse] = []
        self.calls: dict[int, ast.Call] = {}
        # id(value node) -> value of the top-level literals already evaluated (visit_Assign).
        self.literals: dict[int, Any] = {}
        # Members of modules used only in type checks (`collections.abc`): each use, and
        # whether it ends its attribute chain; judged after the walk (`check_type_only`).
        self.type_only_modules = _type_check_modules(policy)
        self.type_only_uses: list[tuple[Load, bool]] = []
        # The heads (ast.Name ids) of memoisation decorators written in the called form:
        # `lru_cache(...)` is lru_cache's, `cache(...)` is not (cache takes the function).
        self.called_memo: set[int] = set()
        # A binding of `isinstance` or `issubclass` anywhere: then no call of that name is
        # known to be the builtin, and no position is a type check.
        self.type_check_shadowed = False
        self.builtin_types = builtin_type_names(policy.builtins)
        # `global` statements, judged against the top-level bindings after the walk; and
        # whether the file can hold one at all (its text says "global").
        self.global_statements: list[tuple[str, ast.Global]] = []
        self.scan_globals = scan_globals

    # ----------------------------------------------------------------- reporting
    def char_col(self, lineno: int, byte_offset: int) -> int:
        """1-based character column of a UTF-8 byte offset (what `ast` reports)."""
        if self.ascii_only or not 0 < lineno <= len(self.lines):
            return byte_offset + 1
        line = self.lines[lineno - 1]
        if line.isascii():
            return byte_offset + 1
        return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace")) + 1

    def col(self, node: ast.AST) -> int:
        return self.char_col(getattr(node, "lineno", 1) or 1, getattr(node, "col_offset", 0) or 0)

    def admit(self, code: str) -> bool:
        """Count every finding; keep the first few per code (positions cost time on long
        non-ASCII lines, and a file with 40,000 of one mistake needs no 40,000 lines)."""
        count = self.code_counts.get(code, 0) + 1
        self.code_counts[code] = count
        return count <= MAX_FINDINGS_PER_CODE

    def report(self, node: ast.AST, code: str, message: str) -> None:
        if self.admit(code):
            line = getattr(node, "lineno", 1) or 1
            self.findings.append(Finding(line, self.col(node), code, message))

    def report_attribute(self, node: ast.Attribute, code: str, message: str) -> None:
        """Point at the attribute's own name (`x.y.__class__` reports where `__class__` is)."""
        if not self.admit(code):
            return
        line = node.end_lineno or node.lineno
        end = node.end_col_offset
        col = self.col(node) if end is None else self.char_col(line, end) - len(node.attr)
        self.findings.append(Finding(line, max(col, 1), code, message))

    # ----------------------------------------------------------------- walking
    def run(self, tree: ast.Module) -> None:
        try:
            self.visit_Module(tree)
        except _Abort:
            return
        self.resolve_module()
        if self.type_only_uses:
            self.check_type_only()
        if self.global_statements:
            self.check_globals(tree)

    def visit(self, node: ast.AST) -> None:
        self.nodes += 1
        kind = type(node)
        if self.nodes <= self.max_nodes:
            # Two thirds of all visits are constants and names: no dispatch.
            if kind is _Constant:
                return
            if kind is _Name:
                self.visit_Name(node)  # type: ignore[arg-type]
                return
        else:
            self.findings.append(
                Finding(
                    getattr(node, "lineno", 1) or 1,
                    self.col(node),
                    "DT009",
                    f"more than {self.max_nodes} syntax nodes",
                )
            )
            raise _Abort
        handler = self._dispatch.get(kind)
        if handler is None:
            if type(node) not in INERT_NODES:
                self.report(
                    node, "DT901", f"unknown syntax {type(node).__name__}: refused until reviewed"
                )
            return
        # No try/finally: an exception ends the whole walk, so the depth no longer matters.
        self.depth += 1
        if self.depth > self.max_depth:
            if not self.depth_reported:
                self.depth_reported = True
                self.report(node, "DT010", f"nesting deeper than {self.max_depth} levels")
        else:
            handler(self, node)
        self.depth -= 1

    def visit_all(self, nodes: Iterable[ast.AST | None]) -> None:
        visit = self.visit
        for child in nodes:
            if child is not None:
                if type(child) is _Constant and self.nodes < self.max_nodes:
                    self.nodes += 1  # as visit would count it, without the call
                    continue
                visit(child)

    def generic(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.visit(child)

    # ----------------------------------------------------------------- scopes
    def push(self, kind: str) -> Scope:
        self.scope = Scope(kind, self.scope)
        return self.scope

    def pop(self) -> None:
        scope = self.scope
        parent = scope.parent
        assert parent is not None
        imports = scope.imports
        bound = scope.bound
        for load in scope.loads:
            if imports:
                binding = imports.get(load.name)
                if binding is not None:
                    # A function-level import: the same member rules as at the top level.
                    self.resolve_import(load, binding, scope)
                    continue
            if load.name not in bound:
                parent.loads.append(load)
            elif load.role:  # bound here: a decorator or a type name is then not the import
                if load.role == DECORATOR:
                    self.report_decorator(load.node)
                elif load.role == TYPE_NAME:
                    self.report_type_name(load)
        self.scope = parent

    def bind(self, name: str, node: ast.AST, scope: Scope | None = None) -> None:
        self.check_name(name, node)
        self.store(name, scope or self.scope)

    def store(self, name: str, scope: Scope) -> None:
        """`name` is bound in `scope` (in the module's, when a `global` statement says so)."""
        if scope.globals and name in scope.globals:
            scope = self.module_scope
        elif scope.imports and name in scope.imports:
            scope.rebound.add(name)
        if name in TYPE_CHECK_CALLS:
            self.type_check_shadowed = True
        scope.bound.add(name)

    def check_name(self, name: str, node: ast.AST) -> None:
        """A name the file binds or reads: an underscore name only as the rule allows
        (dyntools.base.reserved_names), never a reserved one (DT301)."""
        if name[:1] == "_":
            problem = underscore_problem(name)
            if problem is not None:
                self.report(node, "DT301", f"name {name!r} {problem}")

    # ----------------------------------------------------------------- module
    def visit_Module(self, node: ast.Module) -> None:
        """Allow a module: each statement is walked (the contract checks the top-level shape)."""
        self.visit_all(node.body)

    def resolve_module(self) -> None:
        scope = self.module_scope
        for load in scope.loads:
            self.resolve(load, scope.bound)

    def resolve(self, load: Load, module_bound: set[str]) -> None:
        name = load.name
        binding = self.imports.get(name)
        if binding is not None:
            self.resolve_import(load, binding, self.module_scope)
            return
        role = load.role
        if role == DECORATOR:
            self.report_decorator(load.node)
        if name in module_bound:
            if role == TYPE_NAME:
                self.report_type_name(load)
            return
        policy = self.policy
        if name in policy.builtins:
            return
        if role == ANNOTATION and name in policy.annotation_names:
            return
        if role == TYPE_OF:
            return  # `type(x) == int` (visit_Compare): the builtin, in its one shape
        if name[:1] == "_" and name != "_":
            if underscore_problem(name) is None:  # else reported where it was written
                self.report(load.node, "DT301", f"name {name!r} is not bound in this file: "
                            "a name starting with an underscore must be the tool's own")
            return
        reason = policy.denied_builtins.get(name)
        if reason is not None:
            self.report(load.node, "DT401", f"{name} is not allowed: {reason}")
        elif name in policy.annotation_names:
            self.report(load.node, "DT401", f"{name} is allowed only in annotations")
        else:
            self.report(
                load.node, "DT306", f"name {name!r} is not defined and not an allowed builtin"
            )

    def resolve_import(self, load: Load, binding: ImportBinding, scope: Scope) -> None:
        """A name bound by an import in `scope`, read: the module and member rules."""
        if binding.kind != "member":
            self.check_module_chain(load, binding)
        else:
            if self.track_host:
                self.note_member_use(load, binding)
            if self.type_only_modules and \
                    binding.dotted.rpartition(".")[0] in self.type_only_modules:
                self.type_only_uses.append((load, not load.chain))
        if load.role == DECORATOR and not self.memo_binding(load, binding, scope):
            self.report_decorator(load.node)
        elif load.role == TYPE_NAME:
            self.report_type_name(load)

    def report_type_name(self, load: Load) -> None:
        self.report(load.node, "DT401", f"type(x) may be compared only with builtin types, and "
                    f"{load.name} is bound in this file: use isinstance, or another name")

    def denied_call(self, dotted: str) -> str | None:
        if not dotted.startswith(self.denied_call_keys):
            return None
        for key, reason in self.policy.denied_calls.items():
            if dotted == key or dotted.startswith(key):
                return reason
        return None

    def check_module_chain(self, load: Load, binding: ImportBinding) -> None:
        policy = self.policy
        current = binding.dotted
        for attr_node in load.chain:
            attr = attr_node.attr
            if attr.startswith("_") or policy.attribute_denial(attr) is not None:
                return  # reported by the attribute rules already
            candidate = f"{current}.{attr}"
            if binding.kind == "refused":
                reason = self.denied_call(candidate)
                if reason is not None:
                    self.report_attribute(attr_node, "DT402", reason)
                return
            if candidate in policy.modules:
                current = candidate
                continue
            module = policy.modules.get(current)
            if module is None:
                if policy.is_package_prefix(candidate):
                    current = candidate
                    continue
                self.report_attribute(attr_node, "DT201", self.module_message(candidate))
                return
            if self.check_member(module.name, attr, attr_node):
                if module.name in self.provided:
                    self.host_uses.append(HostUse(module.name, attr, attr_node,
                                                  self.calls.get(id(attr_node))))
                if module.name in self.type_only_modules:
                    self.type_only_uses.append((load, attr_node is load.chain[-1]))
            return
        if binding.kind == "refused":
            message = f"{load.name} is bound by a refused import of {current} and may not be used"
        else:
            message = f"module {current} may only be used as {current}.member, not as a value"
        self.report(load.node, "DT206", message)

    def note_member_use(self, load: Load, binding: ImportBinding) -> None:
        """A name bound by `from host import member`, used here."""
        module, _, member = binding.dotted.rpartition(".")
        if module in self.provided:
            self.host_uses.append(HostUse(module, member, load.node, self.calls.get(id(load.node))))

    def module_message(self, dotted: str) -> str:
        reason = self.policy.module_denial(dotted)
        if reason:
            return f"module {dotted} is not allowed: {reason}"
        return f"module {dotted} is not on the allow-list"

    def check_member(self, module_name: str, member: str, node: ast.AST) -> bool:
        """Report a member of an allowed module that may not be reached; True when allowed."""
        module = self.policy.modules[module_name]
        dotted = f"{module_name}.{member}"
        reason = self.denied_call(dotted)
        if member in module.members and reason is None:
            return True
        report = self.report_attribute if isinstance(node, ast.Attribute) else self.report
        if reason is not None:
            report(node, "DT402", reason)  # type: ignore[arg-type]
        elif member in module.submodules:
            report(node, "DT207", f"{dotted} is a module that is not on the allow-list")  # type: ignore[arg-type]
        else:
            why = module.excluded.get(member)
            report(
                node,  # type: ignore[arg-type]
                "DT202",
                f"{dotted} is not allowed: {why}" if why else f"{dotted} is not on the allow-list",
            )
        return False

    # ----------------------------------------------------------------- imports
    def top_level(self) -> bool:
        return self.scope is self.module_scope

    def import_allowed_here(self, node: ast.AST) -> bool:
        """Imports stand at the top level or in a function body (not in a class body)."""
        if self.scope.kind in ("module", "function"):
            return True
        self.report(
            node, "DT205", "imports are only allowed at the top level or in a function body"
        )
        return False

    def bind_import(self, name: str, binding: ImportBinding, node: ast.AST) -> None:
        policy = self.policy
        if name in policy.builtins or name in policy.denied_builtins or name in (
            "NAME", "DESCRIPTION", "PARAMS", "EXAMPLES", "CAPABILITIES", "run"
        ):
            self.report(
                node, "DT208", f"import binds {name!r}, which shadows a builtin or contract name"
            )
        scope = self.scope
        if scope.globals and name in scope.globals:
            # The module's constant would hold a module at run time, where every other
            # function reads it as the constant the gate saw.
            self.report(node, "DT105", f"import binds {name!r}, which a global statement made "
                        "the module's: only an assignment may rebind a global")
        if name in scope.bound:
            scope.rebound.add(name)  # bound before, some other way (or imported twice)
        self.bind(name, node)
        if scope.kind in ("module", "function"):
            scope.imports[name] = binding

    def visit_Import(self, node: ast.Import) -> None:
        """Allow `import X` of allow-listed modules only (DT201), bound as a module."""
        self.import_allowed_here(node)
        policy = self.policy
        if any(alias.name.split(".", 1)[0] in self.provided for alias in node.names):
            self.host_imports.append(node)
        for alias in node.names:
            dotted = alias.name
            allowed = dotted in policy.modules
            # `import urllib`: a package whose allowed submodules (urllib.parse) are reached
            # through it, as after `import urllib.parse` (the worker binds a view of them).
            package = not allowed and policy.is_package_prefix(dotted)
            if not allowed and not package:
                self.report(alias, "DT201", self.module_message(dotted))
            if alias.asname is not None:
                kind = "module" if allowed else "package" if package else "refused"
                self.bind_import(alias.asname, ImportBinding(kind, dotted, node.lineno), alias)
                continue
            head = dotted.split(".", 1)[0]
            if not allowed and not package:
                kind = "refused"
            elif head in policy.modules:
                kind = "module"
            else:
                kind = "package"
            self.bind_import(head, ImportBinding(kind, head, node.lineno), alias)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        """Allow `from X import m` of allowed members; deny `*` (DT203) and relative (DT204)."""
        if node.module == "__future__" and not node.level and self.top_level() and all(
            alias.name == "annotations" and alias.asname is None for alias in node.names
        ):
            # A compiler directive (annotations stay unevaluated strings), common in modern
            # code; the sandbox drops it from the tree it compiles, with the annotations.
            return
        self.import_allowed_here(node)
        policy = self.policy
        if node.level:
            self.report(node, "DT204", "relative imports are not allowed")
        source = node.module or ""
        if not node.level and source.split(".", 1)[0] in self.provided:
            self.host_imports.append(node)
        source_allowed = not node.level and source in policy.modules
        package = not node.level and not source_allowed and policy.is_package_prefix(source)
        if not source_allowed and not package and not node.level:
            self.report(node, "DT201", self.module_message(source))
        for alias in node.names:
            if alias.name == "*":
                self.report(node, "DT203", f"from {source} import * is not allowed")
                continue
            local = alias.asname or alias.name
            dotted = f"{source}.{alias.name}"
            if alias.name.startswith("_"):
                self.report(alias, "DT301", f"name {alias.name!r} starts with an underscore")
                binding = ImportBinding("refused", dotted, node.lineno)
            elif dotted in policy.modules:
                binding = ImportBinding("module", dotted, node.lineno)
            elif source_allowed:
                ok = self.check_member(source, alias.name, alias)
                binding = ImportBinding("member" if ok else "refused", dotted, node.lineno)
                if ok and source in self.provided:
                    self.host_uses.append(HostUse(source, alias.name, alias, imported=True))
            elif package:
                self.report(alias, "DT201", self.module_message(dotted))
                binding = ImportBinding("refused", dotted, node.lineno)
            else:
                reason = self.denied_call(dotted)
                if reason is not None:
                    self.report(alias, "DT402", reason)
                binding = ImportBinding("refused", dotted, node.lineno)
            self.bind_import(local, binding, alias)

    # ----------------------------------------------------------------- functions
    def visit_arguments(self, args: ast.arguments) -> None:
        """Allow parameters: defaults and annotations are walked in the enclosing scope."""
        self.visit_all(args.defaults)
        self.visit_all(args.kw_defaults)
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None and arg.annotation is not None:
                self.annotation(arg.annotation)

    def bind_arguments(self, args: ast.arguments) -> None:
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                self.bind(arg.arg, arg)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """Allow `def` named as names may be (DT604, DT301), memoised at most (DT103)."""
        # `_helper` yes, `__x` and `_x_` no, no builtin's name at the top level; no decorator
        # but functools.lru_cache/cache (memo_decorator), and none on run.
        name = node.name
        if name[:1] == "_":
            problem = underscore_problem(name)
            if problem is not None:
                code = "DT301" if is_reserved(name) else "DT604"
                self.report(node, code, f"function name {name!r} {problem}")
        elif self.top_level() and (
            name in self.policy.builtins or name in self.policy.denied_builtins
        ):
            self.report(
                node,
                "DT307",
                f"def {name} shadows the builtin of that name; a reader would take "
                "every call of it for the builtin",
            )
        self.store(name, self.scope)
        for decorator in node.decorator_list:
            if name == "run":
                self.report(decorator, "DT103", "run may not be decorated: the host calls "
                            "run(params) itself, once per call")
                self.visit(decorator)
            elif not self.memo_decorator(decorator):
                self.report_decorator(decorator)
                self.visit(decorator)
        self.visit_arguments(node.args)
        if node.returns is not None:
            self.annotation(node.returns)
        scope = self.push("function")
        if self.scan_globals:
            _declare_globals(node.body, scope)
        self.bind_arguments(node.args)
        self.visit_all(node.body)
        self.function_yields[node] = scope.has_yield
        self.pop()

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        """Deny `async def` (DT104); its body is still walked for more findings."""
        self.report(node, "DT104", "async functions are not allowed")
        self.visit_FunctionDef(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        """Allow lambdas: defaults in the enclosing scope, the body in a scope of its own."""
        self.visit_arguments(node.args)
        self.push("lambda")
        self.bind_arguments(node.args)
        self.visit(node.body)
        self.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        """Deny classes (DT102); bases, keywords and body are still walked."""
        self.report(node, "DT102", "classes are not allowed in tool files")
        self.check_name(node.name, node)
        self.scope.bound.add(node.name)
        for decorator in node.decorator_list:
            self.report(decorator, "DT103", "decorators are not allowed")
            self.visit(decorator)
        self.visit_all(node.bases)
        self.visit_all(node.keywords)
        self.push("class")
        self.visit_all(node.body)
        self.pop()

    def visit_Return(self, node: ast.Return) -> None:
        """Allow `return`, walking the value."""
        if node.value is not None:
            self.visit(node.value)

    def function_scope(self) -> Scope:
        scope = self.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        return scope

    def visit_Yield(self, node: ast.Yield | ast.YieldFrom) -> None:
        """Allow `yield` in helpers (run itself may not be a generator: DT603)."""
        self.function_scope().has_yield = True
        if node.value is not None:
            self.visit(node.value)

    def visit_YieldFrom(self, node: ast.YieldFrom) -> None:
        """Allow `yield from` in helpers, as `yield`."""
        self.visit_Yield(node)

    def visit_Await(self, node: ast.Await) -> None:
        """Deny `await` (DT104)."""
        self.report(node, "DT104", "await is not allowed")
        self.visit(node.value)

    def visit_Global(self, node: ast.Global) -> None:
        """Allow `global` of a top-level constant, in a function (DT105 otherwise)."""
        # Checked after the walk (`check_globals`); a call that rebinds one spends its worker.
        if self.scope.kind != "function":
            self.report(node, "DT105", "global is only meaningful in a function body")
            return
        if not self.scan_globals:  # the pre-scan was told there is none: fail closed
            self.report(node, "DT105", "global statement the gate did not expect here")
            return
        for name in node.names:
            self.check_name(name, node)
            self.scope.globals.add(name)
            self.global_statements.append((name, node))

    def check_globals(self, tree: ast.Module) -> None:
        """Each `global` names a constant bound by a top-level assignment: not an import or
        a def (the gate's rules for those hold where they are bound), nor metadata."""
        constants: set[str] = set()
        others = set(self.imports)
        for stmt in tree.body:
            if type(stmt) is ast.FunctionDef:
                others.add(stmt.name)
            targets = stmt.targets if type(stmt) is ast.Assign else (
                [stmt.target] if type(stmt) is ast.AnnAssign else [])
            for target in targets:
                elements = target.elts if type(target) in (ast.Tuple, ast.List) else [target]  # type: ignore[attr-defined]
                constants.update(e.id for e in elements if type(e) is ast.Name)
        for name, node in self.global_statements:
            if name in METADATA_NAMES:
                why = "is tool metadata, read by the host from the file: it never changes"
            elif name in others:
                why = ("is bound by an import or a def at the top level; global may only "
                       "name a constant the file assigns there")
            elif name in constants:
                continue
            else:
                why = ("is not bound at the top level: declare it there first "
                       f"({name} = <a literal>)")
            self.report(node, "DT105", f"global {name}: {name} {why}")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        """Deny `nonlocal` (DT105)."""
        self.report(node, "DT105", "nonlocal statements are not allowed")

    # ----------------------------------------------------------------- statements
    def visit_Expr(self, node: ast.Expr) -> None:
        """Allow expression statements, walking the expression."""
        self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        """Allow assignments; a top-level literal is evaluated once here, for the contract."""
        value = node.value
        if type(value) in _DISPLAYS and self.scope is self.module_scope:
            # A top-level constant (EXAMPLES, PARAMS): walking a pure literal finds nothing
            # but its size, so it is evaluated once, here, for the contract, and counted
            # against the node and depth limits as the walk would count it.
            try:
                literal, count, deepest = measured_literal(value)
            except NotLiteral:
                pass
            else:
                if (self.nodes + count <= self.max_nodes
                        and self.depth + 1 + deepest <= self.max_depth):
                    self.nodes += count
                    self.literals[id(value)] = literal
                    self.visit_all(node.targets)
                    return
        self.visit(value)
        self.visit_all(node.targets)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        """Allow augmented assignment (`x += 1`); attribute targets are denied (DT305)."""
        self.visit(node.value)
        self.visit(node.target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        """Allow annotated assignment; the annotation has its own grammar (DT702)."""
        self.annotation(node.annotation)
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.target)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        """Allow `for` loops (and `else`), walking target, iterable and body."""
        self.visit(node.iter)
        self.visit(node.target)
        self.visit_all(node.body)
        self.visit_all(node.orelse)

    def visit_AsyncFor(self, node: ast.AsyncFor) -> None:
        """Deny `async for` (DT104); the loop is still walked."""
        self.report(node, "DT104", "async for is not allowed")
        self.visit_For(node)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        """Allow `with` blocks, walking each context expression and target."""
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.visit(item.optional_vars)
        self.visit_all(node.body)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> None:
        """Deny `async with` (DT104); the block is still walked."""
        self.report(node, "DT104", "async with is not allowed")
        self.visit_With(node)

    def visit_Try(self, node: ast.Try | ast.TryStar) -> None:
        """Allow `try` / `except` / `else` / `finally`."""
        self.visit_all(node.body)
        for handler in node.handlers:
            self.visit_ExceptHandler(handler)
        self.visit_all(node.orelse)
        self.visit_all(node.finalbody)

    def visit_TryStar(self, node: ast.TryStar) -> None:
        """Deny `try` / `except*` (DT703: RestrictedPython refuses it); still walked."""
        self.report(
            node,
            "DT703",
            "try/except* is not allowed: the sandbox's RestrictedPython layer refuses it "
            "(CVE-2025-22153), so the gate does too",
        )
        self.visit_Try(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        """Allow `except` clauses; the bound name follows the name rules."""
        self.nodes += 1
        if node.type is not None:
            self.visit(node.type)
        if node.name is not None:
            self.bind(node.name, node)
        self.visit_all(node.body)

    def visit_Delete(self, node: ast.Delete) -> None:
        """Allow `del` of names and items; attribute deletes are denied (DT305)."""
        self.visit_all(node.targets)

    def visit_Match(self, node: ast.Match) -> None:
        """Deny `match` (DT701: class patterns read attributes named by __match_args__)."""
        self.report(
            node,
            "DT701",
            "match is not allowed: class patterns read attributes named by __match_args__",
        )
        self.visit(node.subject)
        for case in node.cases:
            self.pattern(case.pattern)
            if case.guard is not None:
                self.visit(case.guard)
            self.visit_all(case.body)

    def pattern(self, node: ast.pattern) -> None:
        for child in ast.walk(node):
            self.nodes += 1
            name = getattr(child, "name", None) or getattr(child, "rest", None)
            if isinstance(name, str):
                self.bind(name, child)
            if isinstance(child, ast.MatchValue):
                self.visit(child.value)
            elif isinstance(child, ast.MatchClass):
                self.visit(child.cls)

    def visit_If(self, node: ast.If) -> None:
        """Allow `if` / `elif` / `else`."""
        self.visit(node.test)
        self.visit_all(node.body)
        self.visit_all(node.orelse)

    def visit_While(self, node: ast.While) -> None:
        """Allow `while` loops (and `else`)."""
        self.visit(node.test)
        self.visit_all(node.body)
        self.visit_all(node.orelse)

    def visit_Raise(self, node: ast.Raise) -> None:
        """Allow `raise` (and `from`) of allowed exceptions."""
        if node.exc is not None:
            self.visit(node.exc)
        if node.cause is not None:
            self.visit(node.cause)

    def visit_Assert(self, node: ast.Assert) -> None:
        """Allow `assert`, walking the test and the message."""
        self.visit(node.test)
        if node.msg is not None:
            self.visit(node.msg)

    def visit_Pass(self, node: ast.Pass) -> None:
        """Allow `pass`."""
        pass

    def visit_Break(self, node: ast.Break) -> None:
        """Allow `break`."""
        pass

    def visit_Continue(self, node: ast.Continue) -> None:
        """Allow `continue`."""
        pass

    # ----------------------------------------------------------------- expressions
    def visit_Name(self, node: ast.Name) -> None:
        """Allow names; deny `_x` (DT301) and undefined or refused names (DT306, DT401)."""
        name = node.id
        if name[0] == "_" and name != "_":
            self.check_name(name, node)
        scope = self.scope
        if type(node.ctx) is ast.Load:
            scope.loads.append(Load(name, node, _NO_CHAIN, PLAIN))
        elif scope.globals or scope.imports or name in TYPE_CHECK_CALLS:
            self.store(name, scope)
        else:  # the usual store, as `store` would do it
            scope.bound.add(name)

    def attribute_chain(self, node: ast.Attribute) -> tuple[list[ast.Attribute], ast.expr]:
        """`a.b.c` -> ([.b, .c], a), innermost first, each attribute checked by the rules."""
        chain: list[ast.Attribute] = []
        current: ast.expr = node
        while type(current) is ast.Attribute:
            chain.append(current)
            current = current.value
        chain.reverse()
        for attr_node in chain:
            self.attribute_rules(attr_node)
        return chain, current

    def visit_Attribute(self, node: ast.Attribute) -> None:
        """Allow `x.attr`; deny `_x` (DT302), internals (DT303), format (DT304), writes (DT305)."""
        chain, current = self.attribute_chain(node)
        self.nodes += len(chain) - 1
        if type(current) is ast.Name and type(current.ctx) is ast.Load:
            self.nodes += 1
            self.check_name(current.id, current)
            self.scope.loads.append(Load(current.id, current, chain, PLAIN))
            if current.id in self.denied_call_heads:
                # Whatever `os` is bound to here, `os.system(...)` deserves its own reason.
                reason = self.denied_call(f"{current.id}.{chain[0].attr}")
                if reason is not None:
                    self.report_attribute(chain[0], "DT402", reason)
        else:
            self.visit(current)

    def attribute_rules(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("_"):
            self.report_attribute(node, "DT302", f"attribute {attr!r} starts with an underscore"
                                  + _UNDERSCORE_ATTRIBUTE_HINTS.get(attr, ""))
        elif attr in self.denied_attributes or attr.startswith(self.denied_prefixes):
            reason = self.policy.attribute_denial(attr)
            if reason is not None:
                code = "DT304" if attr in ("format", "format_map") else "DT303"
                self.report_attribute(node, code, f"attribute {attr!r} is not allowed: {reason}")
        if type(node.ctx) is not ast.Load:
            verb = "deleting" if type(node.ctx) is ast.Del else "assigning"
            self.report_attribute(node, "DT305", f"{verb} attribute {attr!r} is not allowed: "
                                  "keep the value in a dict (record[\"name\"] = value) or build "
                                  "a new value with it")

    def visit_Call(self, node: ast.Call) -> None:
        """Allow calls, walking callee, arguments and keywords (the callee decides: DT401/DT402)."""
        if self.track_host:
            self.calls[id(node.func)] = node
        func = node.func
        self.visit(func)
        args = node.args
        if (type(func) is ast.Name and func.id in TYPE_CHECK_CALLS and len(args) == 2
                and not node.keywords and type(args[0]) is not ast.Starred):
            # `isinstance(x, T)`: T is in a type-check position (collections.abc's ABCs).
            self.visit(args[0])
            self.type_operand(args[1])
            return
        self.visit_all(args)
        for keyword in node.keywords:
            self.visit_keyword(keyword)

    def type_operand(self, node: ast.expr) -> None:
        """The second argument of isinstance/issubclass: names (and dotted names) there are
        type-check reads; a tuple of them too; anything else is an ordinary expression."""
        kind = type(node)
        if kind is ast.Tuple:
            self.nodes += 1
            for element in node.elts:  # type: ignore[attr-defined]
                self.type_operand(element)
        elif kind is ast.Name and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
            self.nodes += 1
            name = node.id  # type: ignore[attr-defined]
            self.check_name(name, node)
            self.scope.loads.append(Load(name, node, _NO_CHAIN, TYPE_CHECK))  # type: ignore[arg-type]
        elif kind is ast.Attribute and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
            chain, current = self.attribute_chain(node)  # type: ignore[arg-type]
            if type(current) is ast.Name:
                self.nodes += len(chain) + 1
                self.check_name(current.id, current)
                self.scope.loads.append(Load(current.id, current, chain, TYPE_CHECK))
            else:
                self.nodes += len(chain) - 1
                self.visit(current)
        else:
            self.visit(node)

    def check_type_only(self) -> None:
        """Members of type-check modules (collections.abc's ABCs) appear only as the second
        argument of isinstance/issubclass and in annotations (DT210): held as a value, an
        ABC's register() changes isinstance answers for the whole worker."""
        for load, whole in self.type_only_uses:
            role = load.role
            if whole and (role == ANNOTATION
                          or (role == TYPE_CHECK and not self.type_check_shadowed)):
                continue
            where = load.chain[-1] if load.chain else load.node
            dotted = ".".join([load.name, *(a.attr for a in load.chain)])
            self.report(where, "DT210", f"{dotted} may be used only as the second argument of "
                        "isinstance() or issubclass() and in annotations: as a value, its "
                        "register() would change isinstance answers for the whole worker")

    def visit_keyword(self, node: ast.keyword) -> None:
        """Allow keyword arguments; `f(_x=1)` is DT301 (as `_apply_` refuses `**{"_x": 1}`)."""
        self.nodes += 1
        if node.arg is not None and node.arg[:1] == "_":
            self.report(node, "DT301", f"keyword argument {node.arg!r} starts with an "
                        "underscore: keyword arguments never do (pass it by position)")
        self.visit(node.value)

    # ----------------------------------------------------------------- decorators
    def memo_decorator(self, decorator: ast.expr) -> bool:
        """A decorator of the shape functools' memoisation takes: a name or `module.name`
        (lru_cache, cache), bare or called with literal `maxsize`/`typed`. Its head is read
        as a DECORATOR load: where it resolves decides whether it is functools' (a bound
        name of any other kind is DT103), and whether a called form is allowed (lru_cache
        only: `cache()` is not a decorator, the module would not even load)."""
        target = decorator
        if type(decorator) is ast.Call:
            if not memo_arguments(decorator):
                return False
            target = decorator.func
            self.nodes += 1 + len(decorator.args) + 2 * len(decorator.keywords)
            if type(target) is ast.Attribute and target.attr != "lru_cache":
                return False
            if type(target) is ast.Name:
                self.called_memo.add(id(target))
        if type(target) is ast.Name:
            self.nodes += 1
            self.check_name(target.id, target)
            self.scope.loads.append(Load(target.id, target, _NO_CHAIN, DECORATOR))
            return True
        if (type(target) is ast.Attribute and type(target.value) is ast.Name
                and target.attr in MEMO_ATTRIBUTES):
            self.nodes += 2
            head = target.value
            self.check_name(head.id, head)
            self.scope.loads.append(Load(head.id, head, [target], DECORATOR))
            return True
        return False

    def memo_binding(self, load: Load, binding: ImportBinding, scope: Scope) -> bool:
        """The decorator's head is functools' lru_cache or cache, imported once in `scope`."""
        if load.name in scope.rebound:
            return False
        if binding.kind == "member":
            if id(load.node) in self.called_memo:  # `cache(...)`, imported as a name
                return not load.chain and binding.dotted == "functools.lru_cache"
            return not load.chain and binding.dotted in MEMO_DECORATORS
        return (binding.kind == "module" and binding.dotted == "functools"
                and len(load.chain) == 1 and load.chain[0].attr in MEMO_ATTRIBUTES)

    def report_decorator(self, node: ast.AST) -> None:
        self.report(node, "DT103", "decorators are not allowed, but for functools.lru_cache "
                    "(bare, or with literal maxsize/typed) and functools.cache on a function "
                    "other than run: others run code at definition time")

    def visit_Constant(self, node: ast.Constant) -> None:
        """Allow constants (never reached: visit skips them without a dispatch)."""
        pass

    def visit_BinOp(self, node: ast.BinOp) -> None:
        """Allow binary operators."""
        self.visit(node.left)
        self.visit(node.right)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        """Allow `and` / `or`."""
        self.visit_all(node.values)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        """Allow unary operators."""
        self.visit(node.operand)

    def visit_Compare(self, node: ast.Compare) -> None:
        """Allow comparisons; `type(x)` only as `type(x) == int` (elsewhere DT401)."""
        # The shape: dyntools.base.type_compare, which the RestrictedPython policy shares.
        if len(node.ops) == 1 and (type(node.left) is _Call
                                   or type(node.comparators[0]) is _Call):
            call = type_comparison(node, self.builtin_types)
            if call is not None:
                self.nodes += 2  # the call and its callee's name
                func = call.func
                self.scope.loads.append(Load("type", func, _NO_CHAIN, TYPE_OF))  # type: ignore[arg-type]
                other = node.comparators[0] if call is node.left else node.left
                self.visit(call.args[0])
                names = other.elts if type(other) is ast.Tuple else [other]
                self.nodes += len(names) + (type(other) is ast.Tuple)
                for name in names:  # builtin type names (the shape says so)
                    assert type(name) is ast.Name
                    self.scope.loads.append(Load(name.id, name, _NO_CHAIN, TYPE_NAME))
                return
        self.visit(node.left)
        self.visit_all(node.comparators)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        """Allow conditional expressions."""
        self.visit(node.test)
        self.visit(node.body)
        self.visit(node.orelse)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        """Allow subscripts (`x[k]`, `x[a:b]`); item access is guarded again at run time."""
        self.visit(node.value)
        self.visit(node.slice)

    def visit_Slice(self, node: ast.Slice) -> None:
        """Allow slices."""
        self.visit_all((node.lower, node.upper, node.step))

    def visit_Starred(self, node: ast.Starred) -> None:
        """Allow `*x` in calls, displays and targets."""
        self.visit(node.value)

    def visit_List(self, node: ast.List) -> None:
        """Allow list displays."""
        self.visit_all(node.elts)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        """Allow tuple displays."""
        self.visit_all(node.elts)

    def visit_Set(self, node: ast.Set) -> None:
        """Allow set displays."""
        self.visit_all(node.elts)

    def visit_Dict(self, node: ast.Dict) -> None:
        """Allow dict displays (`**spread` included; its keys are checked at run time)."""
        self.visit_all(node.keys)
        self.visit_all(node.values)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        """Allow f-strings, walking every formatted value."""
        self.visit_all(node.values)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> None:
        """Allow `{value!r:spec}` in f-strings, walking the value and the spec."""
        self.visit(node.value)
        if node.format_spec is not None:
            self.visit(node.format_spec)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        """Allow the walrus (`:=`), binding in the enclosing function's scope."""
        self.visit(node.value)
        target = node.target
        self.nodes += 1
        self.bind(target.id, target, self.function_scope())

    def comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        results: tuple[ast.expr, ...],
    ) -> None:
        generators = node.generators
        # The first iterable is evaluated in the enclosing scope.
        self.visit(generators[0].iter)
        self.push("comprehension")
        for index, generator in enumerate(generators):
            self.nodes += 1
            if generator.is_async:
                self.report(node, "DT104", "async comprehensions are not allowed")
            if index:
                self.visit(generator.iter)
            self.visit(generator.target)
            self.visit_all(generator.ifs)
        self.visit_all(results)
        self.pop()

    def visit_ListComp(self, node: ast.ListComp) -> None:
        """Allow list comprehensions, in a scope of their own."""
        self.comprehension(node, (node.elt,))

    def visit_SetComp(self, node: ast.SetComp) -> None:
        """Allow set comprehensions, in a scope of their own."""
        self.comprehension(node, (node.elt,))

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:
        """Allow generator expressions, in a scope of their own."""
        self.comprehension(node, (node.elt,))

    def visit_DictComp(self, node: ast.DictComp) -> None:
        """Allow dict comprehensions, in a scope of their own."""
        self.comprehension(node, (node.key, node.value))

    # ----------------------------------------------------------------- annotations
    def annotation(self, node: ast.expr) -> None:
        """Annotations have their own small grammar; names in them resolve like loads."""
        self.nodes += 1
        if self.depth > self.policy.limits.max_depth:
            return
        self.depth += 1
        try:
            self._annotation(node)
        finally:
            self.depth -= 1

    def _annotation(self, node: ast.expr, literal_ok: bool = False) -> None:
        if isinstance(node, ast.Name):
            self.check_name(node.id, node)
            self.scope.loads.append(Load(node.id, node, [], ANNOTATION))
        elif isinstance(node, ast.Constant):
            value = node.value
            if value is None or value is Ellipsis:
                return
            if literal_ok and isinstance(value, str | int | bool | bytes):
                return
            self.report(
                node,
                "DT702",
                "string and other constant annotations are not allowed (forward references "
                "are evaluated by name at run time)",
            )
        elif isinstance(node, ast.Attribute):
            chain, current = self.attribute_chain(node)
            if isinstance(current, ast.Name):
                self.check_name(current.id, current)
                self.scope.loads.append(Load(current.id, current, chain, ANNOTATION))
            else:
                self.report(current, "DT702", "annotations may only use dotted names")
        elif isinstance(node, ast.Subscript):
            self._annotation(node.value)
            literal_args = _is_literal_form(node.value)
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for item in items:
                self.annotation_item(item, literal_args)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            self.annotation(node.left)
            self.annotation(node.right)
        else:
            self.report(
                node,
                "DT702",
                f"{type(node).__name__} is not allowed in an annotation",
            )
            self.visit(node)

    def annotation_item(self, node: ast.expr, literal_ok: bool) -> None:
        self.nodes += 1
        if type(node) in (ast.List, ast.Tuple):
            for element in node.elts:  # type: ignore[attr-defined]
                self.annotation_item(element, literal_ok)
        elif self.depth <= self.policy.limits.max_depth:
            self.depth += 1
            try:
                self._annotation(node, literal_ok)
            finally:
                self.depth -= 1


@lru_cache(maxsize=4)
def _dispatch_table(
    handled: tuple[type[ast.AST], ...],
) -> dict[type[ast.AST], Callable[[GateVisitor, Any], None]]:
    """Node class -> unbound handler, built once (tests may swap HANDLED_NODES)."""
    return {cls: getattr(GateVisitor, f"visit_{cls.__name__}") for cls in handled}


_TYPE_CHECK_MODULES: dict[str, frozenset[str]] = {}


def _type_check_modules(policy: Policy) -> frozenset[str]:
    """policy.type_check_modules, worked out once per policy (by its digest)."""
    found = _TYPE_CHECK_MODULES.get(policy.digest)
    if found is None:
        found = _TYPE_CHECK_MODULES[policy.digest] = policy.type_check_modules
    return found


def memo_arguments(call: ast.Call) -> bool:
    """lru_cache's own arguments, as literals: `maxsize` (an int or None) and `typed` (a
    bool), by position or keyword, each at most once."""
    if len(call.args) > 2 or any(type(a) is ast.Starred for a in call.args):
        return False
    given: list[tuple[str | None, ast.expr]] = list(
        zip(("maxsize", "typed")[:len(call.args)], call.args, strict=True))
    given += [(k.arg, k.value) for k in call.keywords]
    if len({name for name, _ in given}) != len(given):
        return False  # the same argument twice
    for name, value in given:
        if type(value) is not ast.Constant:
            return False
        literal = value.value
        if name == "maxsize" and not (literal is None or type(literal) is int):
            return False
        if name == "typed" and type(literal) is not bool:
            return False
        if name not in ("maxsize", "typed"):
            return False
    return True


def _declare_globals(body: list[ast.stmt], scope: Scope) -> None:
    """The names a function body's `global` statements declare (nested functions, lambdas
    and classes have their own), known before the body is walked: Python makes every use
    in the body global, wherever the statement stands."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Global:
            scope.globals.update(node.names)  # type: ignore[attr-defined]
        elif kind not in _OWN_SCOPES:
            stack.extend(ast.iter_child_nodes(node))


_OWN_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})
# Said with DT302 where a model reaches for these (library namedtuples' methods).
_UNDERSCORE_ATTRIBUTE_HINTS = {
    "_replace": ": build a new tuple instead (P(x=1, y=p.y)), or keep the values in a dict",
    "_asdict": ": read the fields by name, or keep the values in a dict",
    "_make": ": call the class with the fields (P(x=1, y=2))",
    "_fields": ": name the fields you need, or keep the values in a dict",
}


def _is_literal_form(node: ast.expr) -> bool:
    if type(node) is ast.Name:
        return node.id == "Literal"
    return type(node) is ast.Attribute and node.attr == "Literal"


HANDLED_NODES: tuple[type[ast.AST], ...] = (
    ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Return, ast.Delete,
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.While, ast.If,
    ast.With, ast.AsyncWith, ast.Match, ast.Raise, ast.Try, ast.TryStar, ast.Assert,
    ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Expr, ast.Pass, ast.Break,
    ast.Continue,
    ast.BoolOp, ast.NamedExpr, ast.BinOp, ast.UnaryOp, ast.Lambda, ast.IfExp, ast.Dict,
    ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Await, ast.Yield,
    ast.YieldFrom, ast.Compare, ast.Call, ast.FormattedValue, ast.JoinedStr, ast.Constant,
    ast.Attribute, ast.Subscript, ast.Starred, ast.Name, ast.List, ast.Tuple, ast.Slice,
    ast.ExceptHandler, ast.keyword,
)

# Node classes that only appear inside a handled parent and are walked by it directly.
WALKED_BY_PARENT: frozenset[type[ast.AST]] = frozenset(
    {
        ast.arguments, ast.arg, ast.comprehension, ast.alias, ast.withitem, ast.match_case,
        ast.MatchValue, ast.MatchSingleton, ast.MatchSequence, ast.MatchMapping,
        ast.MatchClass, ast.MatchStar, ast.MatchAs, ast.MatchOr,
    }
)
