"""Which values in a tool file may hold something a library put there (host side, at load).

The run-time guards check every value that comes out of a container (subscript, iteration,
unpacking) and every value a call returns, because library code fills containers and returns
objects a tool must never hold. Checking values the tool itself built from plain data would
guard nothing and cost a Python call per item in compute loops (1.7-2.8x native, measured).
This analysis tells the two apart, so the transform in `restrict` guards only where needed.

It is flow-insensitive and conservative. Every variable, container literal, function parameter
and return value is a node; a value flowing into another (assignment, an item put into a list,
an argument into a parameter, a method of a container called with an argument) merges their
nodes, and a container shares one node with everything inside it. A node is *tainted* when it
meets a value the tool did not build from plain data: an attribute read, an import, what an
unknown call returns, a parameter of a function handed to library code, an exception, a `with`
target. A call is *guarded* unless it is a call of the file's own (undecorated, never rebound)
function, or of a builtin, a numeric function or a built-in container method with untainted
arguments. What a guarded call is given stays as it was: no allowed callable leaves library
internals inside its arguments (the copy functions that did are replaced, see `hardening`),
which the reachability walk in the test suite checks member by member. Taint only grows, so
the fixed point is reached after each call site has been guarded at most once.
`run`'s `params` is plain data: the host checks it is JSON-shaped before each call.
"""

from __future__ import annotations

import ast
import builtins

# Builtins whose result CPython builds itself as an exact int, bool or str, whatever they are
# given (an `__int__` returning an int subclass is copied to an exact int; `str()` and
# `repr()` are not here: they return what `__str__`/`__repr__` returned, subclasses included).
EXACT_RESULT_BUILTINS = frozenset({
    "len", "bool", "isinstance", "issubclass", "callable", "hash", "ascii", "chr", "ord",
    "hex", "bin", "oct", "int", "float",
})
# Builtins whose result is made of their arguments, or is a fresh plain value when their
# arguments are plain data (a library object's dunder method may return anything).
COMPOSING_BUILTINS = frozenset({
    "abs", "all", "any", "bytearray", "bytes", "complex", "dict", "divmod", "enumerate",
    "filter", "format", "frozenset", "iter", "list", "map", "max", "min", "next", "pow",
    "range", "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple",
    "zip",
})
# Methods of the built-in data types (str, bytes, list, dict, set, tuple, int, float): on a
# plain receiver their results are fresh plain values or items of the receiver/arguments.
PLAIN_METHODS = frozenset({
    # str / bytes
    "capitalize", "casefold", "center", "count", "decode", "encode", "endswith", "expandtabs",
    "find", "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier",
    "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust",
    "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind",
    "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith",
    "strip", "swapcase", "title", "translate", "upper", "zfill", "hex", "fromhex",
    # list / dict / set
    "append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear", "copy",
    "get", "items", "keys", "values", "setdefault", "update", "popitem", "add", "discard",
    "difference", "difference_update", "intersection", "intersection_update", "isdisjoint",
    "issubset", "issuperset", "symmetric_difference", "symmetric_difference_update", "union",
    # int / float
    "bit_length", "bit_count", "to_bytes", "as_integer_ratio", "is_integer", "conjugate",
})
# Modules whose functions take and return numbers only.
NUMERIC_MODULES = frozenset({"math", "cmath"})

TAINT = 0


def _exception_class(name: str) -> bool:
    """A builtin exception class: calling it makes an exception holding its arguments."""
    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)


# The analysis' records are plain classes: nothing compares them (they are found by the id
# of their node), so they need no generated __eq__.
class Function:
    def __init__(self, params: list[int], returns: int, node: ast.AST) -> None:
        self.params = params
        self.returns = returns
        self.node = node


class CallSite:
    def __init__(self, node: ast.Call, kind: str, inputs: list[int], result: int) -> None:
        self.node = node
        self.kind = kind  # "tool", "exact", "builtin", "method", "numeric", "guarded"
        self.inputs = inputs
        self.result = result


class Scope:
    def __init__(self, node: ast.AST, parent: Scope | None, *, is_function: bool = False
                 ) -> None:
        self.node = node
        self.parent = parent
        self.bound: set[str] = set()
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.is_function = is_function


class Facts:
    """What the transform asks: is this expression tainted, is this call guarded, does this
    function receive values from library code."""

    def __init__(self, analysis: Analysis) -> None:
        self._analysis = analysis

    def tainted(self, node: ast.AST) -> bool:
        found = self._analysis.expr_nodes.get(id(node))
        return True if found is None else self._analysis.is_tainted(found)

    def call_guarded(self, node: ast.Call) -> bool:
        return id(node) in self._analysis.guarded_calls or id(node) not in self._analysis.sites

    def is_callback(self, node: ast.AST) -> bool:
        return id(node) in self._analysis.callbacks

    def is_builtin(self, node: ast.AST) -> bool:
        """`node` is a name the file never binds where it is read (a builtin's)."""
        scope = self._analysis.scope_of_name.get(id(node))
        return (isinstance(node, ast.Name) and scope is not None
                and self._analysis.resolve(scope, node.id) is None)


class Analysis:
    def __init__(self) -> None:
        self.parent: list[int] = [TAINT]
        self.scopes: dict[int, Scope] = {}
        self.vars: dict[tuple[int, str], int] = {}
        self.functions: dict[int, Function] = {}  # id(def node) -> Function
        self.expr_nodes: dict[int, int] = {}
        self.sites: dict[int, CallSite] = {}
        self.guarded_calls: set[int] = set()
        self.callbacks: set[int] = set()
        self.import_modules: dict[tuple[int, str], str] = {}
        self.numeric_names: set[tuple[int, str]] = set()
        self.escaping: set[int] = set()
        self.derivations: list[tuple[int, list[int]]] = []
        self.constructors: frozenset[tuple[str, str]] = frozenset()
        self.constructor_names: set[tuple[int, str]] = set()
        self.all_bindings: dict[tuple[int, str], list[ast.AST]] = {}
        self.scope_of_name: dict[int, Scope] = {}
        self.def_scope: dict[int, Scope] = {}
        self.stmt_scope: dict[int, Scope] = {}
        self.current: list[Scope] = []
        self.function_stack: list[Function] = []

    # -- union-find ---------------------------------------------------------------------

    def new(self) -> int:
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, node: int) -> int:
        root = node
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[node] != root:
            self.parent[node], node = root, self.parent[node]
        return root

    def union(self, a: int, b: int) -> int:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        if rb == TAINT:
            ra, rb = rb, ra
        self.parent[rb] = ra  # TAINT stays the root of its class
        return ra

    def taint(self, node: int) -> None:
        self.union(TAINT, node)

    def is_tainted(self, node: int) -> bool:
        return self.find(node) == TAINT

    # -- scopes (pass 1) ----------------------------------------------------------------

    def collect(self, node: ast.AST, scope: Scope) -> None:
        self.scopes[id(node)] = scope
        for child in ast.iter_child_nodes(node):
            self._collect_node(child, scope)

    def _bind(self, scope: Scope, name: str, node: ast.AST) -> None:
        scope.bound.add(name)

    def _collect_node(self, node: ast.AST, scope: Scope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if not isinstance(node, ast.Lambda):
                self._bind(scope, node.name, node)
                for deco in node.decorator_list:
                    self._collect_node(deco, scope)
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    self._collect_node(default, scope)
            inner = Scope(node, scope, is_function=True)
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                        *([args.vararg] if args.vararg else []),
                        *([args.kwarg] if args.kwarg else [])]:
                inner.bound.add(arg.arg)
            self.scopes[id(node)] = inner
            body: list[ast.AST] = ([node.body] if isinstance(node, ast.Lambda)
                                   else list(node.body))
            for statement in body:
                self._collect_node(statement, inner)
            return
        if isinstance(node, ast.Global):
            scope.globals.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            self._bind(scope, node.id, node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                self._bind(scope, (alias.asname or alias.name).partition(".")[0], node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self._bind(scope, node.name, node)
        for part in ast.iter_child_nodes(node):
            self._collect_node(part, scope)

    def resolve(self, scope: Scope, name: str) -> tuple[int, str] | None:
        """The (scope id, name) a name refers to; None for a builtin or unknown name."""
        module = scope
        while module.parent is not None:
            module = module.parent
        if name in scope.globals:
            return (id(module.node), name)
        here: Scope | None = scope
        if name in scope.nonlocals:
            here = scope.parent
        while here is not None:
            if name in here.bound:
                if name in here.globals:
                    return (id(module.node), name)
                return (id(here.node), name)
            here = here.parent
        return None

    def var(self, key: tuple[int, str]) -> int:
        node = self.vars.get(key)
        if node is None:
            node = self.vars[key] = self.new()
        return node

    # -- values (pass 2) ----------------------------------------------------------------

    @property
    def scope(self) -> Scope:
        return self.current[-1]

    def name_node(self, name: str) -> int:
        key = self.resolve(self.scope, name)
        if key is None:
            return self.new() if hasattr(builtins, name) else TAINT
        return self.var(key)

    def assign(self, target: ast.AST, value: int) -> None:
        if isinstance(target, ast.Name):
            key = self.resolve(self.scope, target.id)
            if key is not None:
                self.union(self.var(key), value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.expr_nodes[id(target)] = value
            for element in target.elts:
                self.assign(element, value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value)
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value)
            self.expr(target.slice)
            self.union(container, value)
        elif isinstance(target, ast.Attribute):
            self.expr(target.value)

    def expr(self, node: ast.AST | None) -> int:
        if node is None:
            return self.new()
        value = self._expr(node)
        self.expr_nodes[id(node)] = value
        return value

    def _expr(self, node: ast.AST) -> int:
        if isinstance(node, ast.Constant):
            return self.new()
        if isinstance(node, ast.Name):
            return self.name_node(node.id)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return self.merge([self.expr(e) for e in node.elts])
        if isinstance(node, ast.Dict):
            return self.merge([self.expr(e) for e in [*node.keys, *node.values] if e])
        if isinstance(node, ast.Starred):
            return self.expr(node.value)
        if isinstance(node, ast.BinOp):
            operands = [self.expr(node.left), self.expr(node.right)]
            if isinstance(node.op, (ast.Add, ast.Mult)):
                return self.merge(operands)  # `a + b`, `a * 3` on lists share a's items
            return self.derive(operands)
        if isinstance(node, ast.UnaryOp):
            return self.derive([self.expr(node.operand)])
        if isinstance(node, ast.BoolOp):
            return self.merge([self.expr(v) for v in node.values])  # one of them, as is
        if isinstance(node, ast.Compare):
            return self.derive([self.expr(node.left),
                                *[self.expr(c) for c in node.comparators]])
        if isinstance(node, ast.IfExp):
            self.expr(node.test)
            return self.merge([self.expr(node.body), self.expr(node.orelse)])
        if isinstance(node, ast.NamedExpr):
            value = self.expr(node.value)
            self.assign(node.target, value)
            return value
        if isinstance(node, (ast.JoinedStr, ast.FormattedValue)):
            for child in ast.iter_child_nodes(node):
                self.expr(child)
            return self.new()
        if isinstance(node, ast.Subscript):
            container = self.expr(node.value)
            self.expr(node.slice)
            return container
        if isinstance(node, ast.Slice):
            return self.merge([self.expr(p) for p in (node.lower, node.upper, node.step) if p])
        if isinstance(node, ast.Attribute):
            # Not the callee of a call here (calls read their callee themselves): a bound
            # method taken as a value (`put = box.append`, `map(box.append, ...)`) lets
            # library code put anything into its receiver.
            self.taint(self.expr(node.value))
            return TAINT
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for generator in node.generators:
                source = self.expr(generator.iter)
                self.assign(generator.target, source)
                for condition in generator.ifs:
                    self.expr(condition)
            if isinstance(node, ast.DictComp):
                return self.merge([self.expr(node.key), self.expr(node.value)])
            return self.merge([self.expr(node.elt)])
        if isinstance(node, ast.Lambda):
            return self.function(node)
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            if self.function_stack:
                self.union(self.function_stack[-1].returns, self.expr(node.value))
            return TAINT  # what the consumer sends in
        if isinstance(node, ast.Await):
            self.expr(node.value)
            return TAINT
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child)
        return TAINT

    def derive(self, nodes: list[int]) -> int:
        """A fresh value computed from `nodes` that holds none of them (a comparison, `-x`,
        `a - b`): tainted if one of them is, without tainting the others."""
        result = self.new()
        self.derivations.append((result, nodes))
        return result

    def merge(self, nodes: list[int]) -> int:
        result = self.new()
        for node in nodes:
            self.union(result, node)
        return result

    # -- calls ----------------------------------------------------------------------------

    def call(self, node: ast.Call) -> int:
        inputs = [self.expr(a) for a in node.args]
        inputs += [self.expr(k.value) for k in node.keywords]
        double_star = any(k.arg is None for k in node.keywords)
        func = node.func
        site: CallSite | None = None
        if isinstance(func, ast.Name) and not double_star:
            key = self.resolve(self.scope, func.id)
            target = self.tool_function_by_key(key)
            if target is not None:
                self.pass_arguments(node, target, inputs)
                site = CallSite(node, "tool", [], target.returns)
            elif key is None and (func.id in EXACT_RESULT_BUILTINS or _exception_class(func.id)):
                site = CallSite(node, "exact", inputs, self.new())
            elif key is None and func.id in COMPOSING_BUILTINS:
                site = CallSite(node, "builtin", inputs, self.merge(inputs))
            elif key is not None and key in self.numeric_names:
                site = CallSite(node, "numeric", inputs, self.new())
            elif key is not None and key in self.constructor_names:
                site = CallSite(node, "constructor", inputs, TAINT)
        elif isinstance(func, ast.Attribute) and not double_star:
            receiver = self.expr(func.value)
            if self.numeric_module(func.value):
                site = CallSite(node, "numeric", inputs, self.new())
            elif self.module_member(func.value, func.attr) in self.constructors:
                site = CallSite(node, "constructor", inputs, TAINT)
            elif func.attr in PLAIN_METHODS:
                site = CallSite(node, "method", [receiver, *inputs],
                                self.merge([receiver, *inputs]))
        elif isinstance(func, ast.Name):  # a call with ** unpacking
            target = self.tool_function_by_key(self.resolve(self.scope, func.id))
            if target is not None:
                self.pass_arguments(node, target, inputs)
                self.taint(target.returns)
        if site is None:
            if not isinstance(func, ast.Attribute):
                self.expr(func)
            self.guarded_calls.add(id(node))
            site = CallSite(node, "guarded", inputs, TAINT)
        self.sites[id(node)] = site
        return site.result

    def module_member(self, node: ast.AST, member: str) -> tuple[str, str] | None:
        """(module, member) for `module.member` where `module` is an import never rebound."""
        if not isinstance(node, ast.Name):
            return None
        key = self.resolve(self.scope, node.id)
        if key is None or len(self.bindings_of(key)) != 1 or key not in self.import_modules:
            return None
        return (self.import_modules[key], member)

    def numeric_module(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Name):
            return False
        key = self.resolve(self.scope, node.id)
        return (key is not None and self.import_modules.get(key) in NUMERIC_MODULES
                and len(self.bindings_of(key)) == 1)

    def bindings_of(self, key: tuple[int, str]) -> list[ast.AST]:
        return self.all_bindings.get(key, [])

    def tool_function_by_key(self, key: tuple[int, str] | None) -> Function | None:
        if key is None:
            return None
        found = self.bindings_of(key)
        if len(found) != 1 or not isinstance(found[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        definition = found[0]
        if definition.decorator_list or isinstance(definition, ast.AsyncFunctionDef):
            return None
        return self.functions.get(id(definition))

    def pass_arguments(self, node: ast.Call, target: Function, inputs: list[int]) -> None:
        definition = target.node
        assert isinstance(definition, ast.FunctionDef)
        positional = [*definition.args.posonlyargs, *definition.args.args]
        simple = (not any(isinstance(a, ast.Starred) for a in node.args)
                  and len(node.args) <= len(positional) and not definition.args.vararg)
        if not simple:
            for value in inputs:
                for param in target.params:
                    self.union(param, value)
            return
        names = [a.arg for a in positional]
        all_names = names + [a.arg for a in definition.args.kwonlyargs]
        scope_key = id(definition)
        for index, arg in enumerate(node.args):
            self.union(self.var((scope_key, names[index])), self.expr_nodes[id(arg)])
        for keyword in node.keywords:
            if keyword.arg in all_names:
                self.union(self.var((scope_key, keyword.arg)),
                           self.expr_nodes[id(keyword.value)])
            else:
                for param in target.params:
                    self.union(param, self.expr_nodes[id(keyword.value)])

    # -- functions and statements ---------------------------------------------------------

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> int:
        """Analyse a def or lambda; return the node of the function value."""
        info = self.functions[id(node)]
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                value = self.expr(default)
                for param in info.params:
                    self.union(param, value)
        scope = self.scopes[id(node)]
        self.current.append(scope)
        self.function_stack.append(info)
        if isinstance(node, ast.Lambda):
            self.union(info.returns, self.expr(node.body))
        else:
            self.statements(node.body)
        self.function_stack.pop()
        self.current.pop()
        value = self.new()
        self.union(value, info.returns)
        return value

    def declare_functions(self, node: ast.AST) -> None:
        for child in ast.walk(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = child.args
                names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                          *([args.vararg] if args.vararg else []),
                                          *([args.kwarg] if args.kwarg else [])]]
                params = [self.var((id(child), name)) for name in names]
                self.functions[id(child)] = Function(params, self.new(), child)

    def statements(self, body: list[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                self.expr(deco)
            value = self.function(node)
            key = self.resolve(self.scope, node.name)
            if key is not None:
                self.union(self.var(key), TAINT if node.decorator_list else value)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.assign(target, value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            self.assign(node.target, self.expr(node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.assign(node.target, self.expr(node.iter))
            if isinstance(node, ast.AsyncFor):
                self.assign(node.target, TAINT)
            self.statements(node.body)
            self.statements(node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, TAINT)
            self.statements(node.body)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.import_statement(node)
        elif isinstance(node, ast.Return):
            if self.function_stack and node.value is not None:
                self.union(self.function_stack[-1].returns, self.expr(node.value))
        elif isinstance(node, (ast.Try, ast.TryStar)):
            self.statements(node.body)
            for handler in node.handlers:
                if handler.type is not None:
                    self.expr(handler.type)
                if handler.name:
                    key = self.resolve(self.scope, handler.name)
                    if key is not None:
                        self.taint(self.var(key))
                self.statements(handler.body)
            self.statements(node.orelse)
            self.statements(node.finalbody)
        elif isinstance(node, (ast.If, ast.While)):
            self.expr(node.test)
            self.statements(node.body)
            self.statements(node.orelse)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child)
                elif isinstance(child, ast.stmt):
                    self.statement(child)


    def import_statement(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            name = (alias.asname or alias.name).partition(".")[0]
            key = self.resolve(self.scope, name)
            if key is None:
                continue
            self.taint(self.var(key))
            if isinstance(node, ast.Import) and (alias.asname or "." not in alias.name):
                self.import_modules[key] = alias.name
            elif (isinstance(node, ast.ImportFrom) and node.module and not node.level
                  and len(self.bindings_of(key)) == 1):
                if node.module in NUMERIC_MODULES:
                    self.numeric_names.add(key)
                elif (node.module, alias.name) in self.constructors:
                    self.constructor_names.add(key)

    # -- the fixed point ------------------------------------------------------------------

    def solve(self) -> None:
        # A function used as a value (not called by name) may be called by library code
        # with anything: its parameters are tainted.
        for function_id, info in self.functions.items():
            if function_id in self.escaping:
                self.callbacks.add(function_id)
                for param in info.params:
                    self.taint(param)
        # A builtin, a numeric function or a container method given a tainted value runs
        # library code (a dunder method) that may return anything: guard it and taint all of
        # it. Each site is guarded once, and taint only grows: this ends.
        pending = [s for s in self.sites.values() if s.kind in ("builtin", "method", "numeric")]
        changed = True
        while changed:
            changed = False
            still = []
            for site in pending:
                if any(self.is_tainted(value) for value in site.inputs):
                    self.guarded_calls.add(id(site.node))
                    for value in site.inputs:
                        self.taint(value)
                    self.taint(site.result)
                    changed = True
                else:
                    still.append(site)
            pending = still
            for result, sources in self.derivations:
                if not self.is_tainted(result) and any(self.is_tainted(v) for v in sources):
                    self.taint(result)
                    changed = True

    def find_escaping(self, tree: ast.AST) -> set[int]:
        """Functions whose name is read other than as the callee of a call."""
        callees = {id(n.func) for n in ast.walk(tree)
                   if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        escaping: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda):
                escaping.add(id(node))
            elif (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
                  and id(node) not in callees):
                scope = self.scope_of_name.get(id(node))
                if scope is None:
                    continue
                key = self.resolve(scope, node.id)
                for binding in self.bindings_of(key) if key else []:
                    if isinstance(binding, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        escaping.add(id(binding))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    node.decorator_list or isinstance(node, ast.AsyncFunctionDef)):
                escaping.add(id(node))
        # A function that is not the only binding of its name is not called as "itself".
        for found in self.all_bindings.values():
            if len(found) > 1:
                escaping.update(id(b) for b in found
                                if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)))
        return escaping

    def map_name_scopes(self, tree: ast.Module) -> None:

        def visit(node: ast.AST, scope: Scope) -> None:
            for child in ast.iter_child_nodes(node):
                inner = self.scopes.get(id(child)) if isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else None
                if inner is not None:
                    # decorators and defaults belong to the enclosing scope
                    assert isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                              ast.Lambda))
                    for outer in [*getattr(child, "decorator_list", []),
                                  *child.args.defaults,
                                  *[d for d in child.args.kw_defaults if d is not None]]:
                        visit_expr(outer, scope)
                    body = [child.body] if isinstance(child, ast.Lambda) else child.body
                    for statement in body:
                        visit_expr(statement, inner)
                else:
                    visit_expr(child, scope)

        def visit_expr(node: ast.AST, scope: Scope) -> None:
            if isinstance(node, ast.Name):
                self.scope_of_name[id(node)] = scope
            visit(node, scope)

        visit(tree, self.scopes[id(tree)])

    def collect_all_bindings(self, tree: ast.Module) -> None:
        """Every binding of every variable, before values are followed."""
        for node in ast.walk(tree):
            names: list[tuple[str, ast.AST]] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.append((node.name, node))
            elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.append((node.id, node))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names += [((a.asname or a.name).partition(".")[0], node) for a in node.names]
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.append((node.name, node))
            for name, binding in names:
                scope = self.binding_scope(node)
                if scope is None:
                    continue
                key = self.resolve(scope, name)
                if key is not None:
                    self.all_bindings.setdefault(key, []).append(binding)

    def binding_scope(self, node: ast.AST) -> Scope | None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self.def_scope.get(id(node))
        return self.scope_of_name.get(id(node), self.stmt_scope.get(id(node)))

    def map_statement_scopes(self, tree: ast.Module) -> None:

        def visit(node: ast.AST, scope: Scope) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.def_scope[id(child)] = scope
                if isinstance(child, (ast.Import, ast.ImportFrom, ast.ExceptHandler)):
                    self.stmt_scope[id(child)] = scope
                inner = self.scopes.get(id(child)) if isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else None
                visit(child, inner if inner is not None else scope)

        visit(tree, self.scopes[id(tree)])


def analyse(tree: ast.Module,
            constructors: frozenset[tuple[str, str]] = frozenset()) -> Facts:
    """Facts about `tree` (before the RestrictedPython transform changes it). `constructors`
    are the (module, member) pairs of allowed plain classes: a call of one by its imported
    name makes an instance of it (a library value, tainted) and needs no guard."""
    analysis = Analysis()
    analysis.constructors = constructors
    module = Scope(tree, None)
    analysis.collect(tree, module)
    analysis.map_name_scopes(tree)
    analysis.map_statement_scopes(tree)
    analysis.collect_all_bindings(tree)
    analysis.declare_functions(tree)
    analysis.escaping = analysis.find_escaping(tree)
    analysis.current = [module]
    analysis.statements(tree.body)
    analysis.solve()
    return Facts(analysis)
