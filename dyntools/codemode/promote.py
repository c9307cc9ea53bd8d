"""`promote`: a script run that worked, as a tool file, through the same pipeline as any tool.

    record = dt.promote(run_id, "title_slug", description="Slugs a title.")

The tool file is written from the kept run, never from anything the caller sends:

    <the description, as the module docstring>
    import host                                  # when the script names tools
    <the script's imports, and its UPPERCASE constants bound once to immutable literals>
    NAME = "title_slug"
    DESCRIPTION = "..."
    PARAMS = {...}                               # every input key, required, typed from its
                                                 # recorded value
    EXAMPLES = [{"params": <inputs>, "result": <result>}]   # the recorded run
    CAPABILITIES = {"tools": [...]}              # every tool its code names (each one it
                                                 # called is among them)
    <the script's top-level defs>
    def run(params):
        inputs = params
        <the rest of the script, each tools.NAME(...) now host.call_tool("NAME", {...})>
        return result

Then `ensure` does what it does for every new version: the gate (with NAME required to be
the name asked for), a sandbox worker holding exactly these bytes, verification of EXAMPLES
(the tools it calls are called for real, as composition is verified: their HTTP may only
GET), persistence under the registry's approval policy (so a tool that composes others
waits for a reviewer under `capabilities` or `always`, and with trusted keys the decision is
a signed one), activation, search. At call time it composes its tools through
`host.call_tool`, under the operator's `[tools]` policy like any composing tool.

Refused, with the reason (PromotionRefused), before anything is written: a run that did not
end ok, a result that is not a JSON object, a script that uses `global` or `nonlocal`, a
top-level def that reads a script variable (in a tool, the script's statements are locals of
`run`, which a module-level function cannot see), a name a hoisted statement binds that the
script binds again, and a script that defines `run` or binds `host` (the tool's own names).
"""

from __future__ import annotations

import ast
import pprint
import symtable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from dyntools.base.log import get_logger
from dyntools.codemode.record import OK, RunRecord
from dyntools.codemode.wrap import HOST_MODULE, is_future_import, rewrite_tool_calls, tool_calls
from dyntools.errors import GateRejected, PromotionRefused, RunTampered
from dyntools.gate.script import INPUTS, RESULT
from dyntools.generators.base import GeneratedSource, ToolSpec

if TYPE_CHECKING:
    from dyntools.codemode.host import ToolSurface
    from dyntools.generators.base import Generator
    from dyntools.pipeline.ensure import EnsureResult
    from dyntools.pipeline.events import StationListener

GENERATOR_ID = "promote"
PARAMETER = "params"
SCHEMA_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
    (list, "array"), (dict, "object"), (type(None), "null"),
)
WIDTH = 96


class PromotingPipeline(Protocol):
    """What promotion uses of a `Dyntools`: code mode's needs, and `ensure`."""

    def ensure(self, spec: ToolSpec | str, *, generator: Generator | None = None,
               new_version: bool = False, require_approval: bool = False,
               tools: Any = None, on_station: StationListener | None = None,
               ) -> EnsureResult: ...


@dataclass(frozen=True, slots=True)
class PromotedSource(GeneratedSource):
    """The tool file written from a run; its provenance names the run and its script."""

    run_id: str = ""
    script_sha256: str = ""

    def as_provenance(self) -> dict[str, Any]:
        return {**GeneratedSource.as_provenance(self), "run_id": self.run_id,
                "script_sha256": self.script_sha256}


class PromotedGenerator:
    """A generator that hands `ensure` the one file written from a run (no retry: the same
    run always makes the same file)."""

    id = GENERATOR_ID
    model = None
    accepts_feedback = False

    def __init__(self, source: str, run_id: str, script_sha256: str) -> None:
        self.source = source
        self.run_id = run_id
        self.script_sha256 = script_sha256

    def generate(self, spec: ToolSpec) -> GeneratedSource:
        return PromotedSource(source=self.source, generator=self.id, model=None,
                              raw_excerpt="", run_id=self.run_id,
                              script_sha256=self.script_sha256)


def promote(pipeline: Any, run_id: str, name: str, description: str | None = None, *,
            require_approval: bool = False, tools: ToolSurface | None = None,
            on_station: StationListener | None = None) -> EnsureResult:
    """Turn kept run `run_id` into tool `name` (a new version when `name` has versions)."""
    from dyntools.codemode.engine import run_store
    from dyntools.gate import check_script
    from dyntools.registry.records import require_valid_name

    require_valid_name(name)
    store = run_store(pipeline)
    with store.claim(run_id):
        record = store.load(run_id)
        refuse_unless_promotable(record)
        raw = record.source.encode("utf-8", "surrogatepass")
        report = check_script(raw, pipeline.policy, path="<script>")
        if report.sha256 != record.sha256:
            raise RunTampered(f"run {run_id}'s kept source is not the source it ran: refused",
                                run_id=run_id)
        if not report.accepted:
            raise GateRejected(report, f"run {run_id}'s script is refused by the gate now "
                               f"({len(report.findings)} finding(s)): it cannot be promoted")
        source = promoted_source(record, name, description)
        generator = PromotedGenerator(source, run_id, record.sha256)
        exists = name in pipeline.registry.names()
        result: EnsureResult = pipeline.ensure(
            ToolSpec(name, description or ""), generator=generator, new_version=exists,
            require_approval=require_approval, tools=tools, on_station=on_station)
        record.promoted = {"tool": name, "version": result.version,
                           "sha256": result.record.sha256, "status": result.record.status}
        get_logger("codemode", run_id=run_id).info(
            "run.promoted", tool=name, version=result.version, sha256=result.record.sha256,
            status=result.record.status)
        store.save(record)
        return result


# ------------------------------------------------------------------------------ the file


def promoted_source(record: RunRecord, name: str, description: str | None) -> str:
    """The tool file for `record` (see the module docstring); PromotionRefused says why
    there is none."""
    run_id = record.run_id
    refuse_unless_promotable(record)
    tree = ast.parse(record.source, filename="<script>")
    _refuse_global(tree, run_id)
    plan = _Plan(tree, record.source, run_id)
    tool_names = sorted({tool for tool, _ in tool_calls(tree)})
    docstring = ast.get_docstring(tree, clean=True)
    text = (description or "").strip() or (docstring or "").strip().split("\n\n")[0] or \
        f"Promoted from script run {run_id}."
    lines = [f'"""{_docstring(text)}"""', ""]
    if plan.future:
        lines += ["from __future__ import annotations", ""]
    imports = [ast.unparse(stmt) for stmt in plan.imports]
    if tool_names and not any(_imports_host(stmt) for stmt in plan.imports):
        imports.insert(0, f"import {HOST_MODULE}")
    if imports:
        lines += [*imports, ""]
    lines += [f"{constant} = {_literal(value)}" for constant, value in (
        ("NAME", name),
        ("DESCRIPTION", text),
        ("PARAMS", params_schema(record.inputs)),
        ("EXAMPLES", [{"params": record.inputs, "result": record.result}]),
    )]
    if tool_names:
        lines.append(f"CAPABILITIES = {_literal({'tools': tool_names})}")
    lines += [ast.unparse(stmt) for stmt in plan.constants]
    for function in plan.functions:
        lines += ["", "", ast.unparse(rewrite_tool_calls(function, HOST_MODULE))]
    body: list[ast.stmt] = [ast.parse(f"{INPUTS} = {PARAMETER}").body[0]]
    for stmt in plan.body:
        rewritten = rewrite_tool_calls(stmt, HOST_MODULE)
        assert isinstance(rewritten, ast.stmt)
        body.append(rewritten)
    body.append(ast.Return(value=ast.Name(RESULT, ast.Load())))
    run = ast.FunctionDef(
        name="run", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=PARAMETER)],
                                       vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                       defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None)
    lines += ["", "", ast.unparse(ast.fix_missing_locations(ast.Module([run], [])))]
    return "\n".join(lines) + "\n"


def refuse_unless_promotable(record: RunRecord) -> None:
    """PromotionRefused unless `record` ended ok with a JSON object that was kept whole."""
    run_id = record.run_id
    if record.status != OK:
        raise PromotionRefused(f"run {run_id} is {record.status}; only a run that ended ok "
                               "can become a tool", run_id=run_id)
    if record.trimmed and not record.inputs and record.result is None:
        raise PromotionRefused(f"run {run_id} was too large to keep whole: its inputs and "
                               "result were not kept", run_id=run_id)
    if not isinstance(record.result, dict):
        raise PromotionRefused(f"run {run_id}'s result is {type(record.result).__name__}, not "
                               "a JSON object: a tool's run(params) returns an object, and its "
                               "EXAMPLES hold that object", run_id=run_id)


def params_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    """PARAMS for a tool whose one recorded call had `inputs`: each key required, typed from
    its value."""
    return {"type": "object",
            "properties": {key: {"type": _schema_type(value)} for key, value in inputs.items()},
            "required": list(inputs)}


def _schema_type(value: Any) -> str:
    for kind, name in SCHEMA_TYPES:
        if isinstance(value, kind):
            return name
    return "string"  # JSON data has no other kind


def _literal(value: Any) -> str:
    return pprint.pformat(value, width=WIDTH, sort_dicts=False)


def _docstring(text: str) -> str:
    """`text` safe between triple quotes (the gate reads the file; nothing evaluates it)."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').strip()


def _imports_host(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Import) and any(
        alias.name == HOST_MODULE and alias.asname is None for alias in stmt.names)


def _refuse_global(tree: ast.Module, run_id: str) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Global | ast.Nonlocal):
            keyword = "global" if isinstance(node, ast.Global) else "nonlocal"
            raise PromotionRefused(
                f"run {run_id}'s script uses {keyword} (line {node.lineno}): in a tool its "
                "top-level statements become locals of run(params), which no function can "
                f"rebind with {keyword}; pass values as arguments and return them instead",
                run_id=run_id, line=node.lineno)


class _Plan:
    """Where each top-level statement of the script goes in the tool file."""

    def __init__(self, tree: ast.Module, source: str, run_id: str) -> None:
        self.run_id = run_id
        self.future = False
        self.imports: list[ast.stmt] = []
        self.constants: list[ast.stmt] = []
        self.functions: list[ast.FunctionDef] = []
        self.body: list[ast.stmt] = []
        statements = list(tree.body)
        if statements and isinstance(statements[0], ast.Expr) and \
                isinstance(statements[0].value, ast.Constant) and \
                isinstance(statements[0].value.value, str):
            statements = statements[1:]  # the docstring: the tool's module docstring
        stores = _store_counts(tree)
        for stmt in statements:
            if is_future_import(stmt):
                self.future = True
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                self.imports.append(stmt)
            elif isinstance(stmt, ast.FunctionDef):
                self.functions.append(stmt)
            elif _hoistable_constant(stmt, stores):
                self.constants.append(stmt)
            else:
                self.body.append(stmt)
        self._check(tree, source)

    def hoisted_names(self) -> dict[str, int]:
        """Each name a hoisted statement binds at the module's top, with its line."""
        names: dict[str, int] = {}
        for stmt in self.imports:
            for alias in stmt.names:  # type: ignore[attr-defined]
                names[alias.asname or alias.name.split(".", 1)[0]] = stmt.lineno
        for stmt in self.constants:
            target = stmt.targets[0]  # type: ignore[attr-defined]
            names[target.id] = stmt.lineno
        for function in self.functions:
            names[function.name] = function.lineno
        return names

    def _check(self, tree: ast.Module, source: str) -> None:
        run_id = self.run_id
        hoisted = self.hoisted_names()
        bound_in_body: dict[str, int] = {}
        for stmt in self.body:
            for name, line in _module_bindings(stmt):
                bound_in_body.setdefault(name, line)
        seen: dict[str, int] = {}
        for stmt in [*self.imports, *self.constants, *self.functions]:
            names = ([a.asname or a.name.split(".", 1)[0] for a in stmt.names]
                     if isinstance(stmt, ast.Import | ast.ImportFrom) else
                     [stmt.name] if isinstance(stmt, ast.FunctionDef) else
                     [stmt.targets[0].id])  # type: ignore[attr-defined]
            for name in names:
                if name in seen and not (name == HOST_MODULE and isinstance(
                        stmt, ast.Import | ast.ImportFrom)):
                    raise PromotionRefused(
                        f"run {run_id}'s script binds {name!r} twice at its top level (lines "
                        f"{seen[name]} and {stmt.lineno}): a tool file binds each module name "
                        "once", run_id=run_id, name=name)
                seen[name] = stmt.lineno
        for name, line in bound_in_body.items():
            if name in hoisted:
                raise PromotionRefused(
                    f"run {run_id}'s script binds {name!r} on line {line} as well as on line "
                    f"{hoisted[name]}: in a tool one would be a module name, the other a local "
                    "of run(params)", run_id=run_id, name=name)
        for name in ("run", HOST_MODULE):
            where = bound_in_body.get(name, hoisted.get(name) if name == "run" else None)
            if where is not None:
                raise PromotionRefused(
                    f"run {run_id}'s script binds {name!r} (line {where}), a name the tool file "
                    "needs for its own: rename it", run_id=run_id, name=name)
        script_variables = set(bound_in_body) | {INPUTS, RESULT}
        self._check_functions(source, script_variables)

    def _check_functions(self, source: str, script_variables: set[str]) -> None:
        """A top-level def becomes a module function of the tool: it may read module names
        (imports, hoisted constants, other defs, builtins), never the script's variables."""
        table = symtable.symtable(source, "<script>", "exec")
        lines = {function.name: function.lineno for function in self.functions}
        for child in table.get_children():
            if child.get_type() != "function" or child.get_name() not in lines:
                continue
            read = sorted(_module_reads(child) & script_variables)
            if read:
                name = child.get_name()
                shown = ", ".join(repr(n) for n in read[:5])
                raise PromotionRefused(
                    f"run {self.run_id}'s top-level def {name} (line {lines[name]}) reads the "
                    f"script variable(s) {shown}: in a tool the script's statements are "
                    f"locals of run(params), which {name} cannot see; pass them as "
                    "arguments", run_id=self.run_id, function=name, names=read)


def _module_reads(table: symtable.SymbolTable) -> set[str]:
    """Names a function (or anything nested in it) reads from the module's scope."""
    found: set[str] = set()
    todo = [table]
    while todo:
        current = todo.pop()
        for symbol in current.get_symbols():
            if symbol.is_global() and symbol.is_referenced():
                found.add(symbol.get_name())
        todo.extend(current.get_children())
    return found


def _store_counts(tree: ast.Module) -> dict[str, int]:
    """How many times each name is bound anywhere in the script."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _hoistable_constant(stmt: ast.stmt, stores: dict[str, int]) -> bool:
    """`NAME = <immutable literal>`, an UPPERCASE name bound nowhere else: the same value at
    the top of a tool file as at the top of the script."""
    from dyntools.gate.capabilities import is_upper_snake

    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)):
        return False
    name = stmt.targets[0].id
    if not is_upper_snake(name) or stores.get(name, 0) != 1:
        return False
    return _immutable_literal(stmt.value)


def _immutable_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str | int | float | bool) or node.value is None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and \
            isinstance(node.operand.value, int | float) and \
            not isinstance(node.operand.value, bool)
    if isinstance(node, ast.Tuple):
        return all(_immutable_literal(element) for element in node.elts)
    return False


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _module_bindings(stmt: ast.stmt) -> list[tuple[str, int]]:
    """Names `stmt` binds in the module's scope: not those of a function or a lambda inside
    it, nor a comprehension's own targets; a comprehension's walrus, though, binds here."""
    found: list[tuple[str, int]] = []
    # (node, inside a function-like scope, inside a comprehension)
    todo: list[tuple[ast.AST, bool, bool]] = [(stmt, False, False)]
    while todo:
        node, in_function, in_comprehension = todo.pop()
        line = getattr(node, "lineno", stmt.lineno)
        if not in_function:
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                found.append((node.target.id, line))
            elif in_comprehension:
                pass
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                found.append((node.id, line))
            elif isinstance(node, ast.ExceptHandler) and node.name:
                found.append((node.name, line))
            elif isinstance(node, ast.alias):
                found.append((node.asname or node.name.split(".", 1)[0], line))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found.append((node.name, line))
        if isinstance(node, ast.NamedExpr):
            todo.append((node.value, in_function, in_comprehension))
            continue  # its target is handled above
        function = in_function or isinstance(node, _FUNCTIONS)
        comprehension = in_comprehension or isinstance(node, _COMPREHENSIONS)
        todo.extend((child, function, comprehension) for child in ast.iter_child_nodes(node))
    return found
