"""The tool-file contract (DESIGN.md §1): the top-level shape and the metadata constants.

The visitor reports constructs that are refused anywhere (classes, async, global, match);
this module reports what is wrong at the top level specifically and checks NAME, DESCRIPTION,
PARAMS, EXAMPLES and CAPABILITIES as data: PARAMS with a real JSON Schema implementation
(dyntools.base.jsonschema_safe), CAPABILITIES with dyntools.gate.capabilities, and each example's
recorded "http" exchanges against that declaration.

Most files are plain JSON data in plain text: one `json.dumps` of all metadata constants
(with `ensure_ascii=False`, `allow_nan=False`) shows at once that every example is JSON, that
no string holds a lone surrogate and whether any string holds a character worth a closer look;
only then are the constants walked one by one (the walks report where).
"""

from __future__ import annotations

import ast
import builtins
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from dyntools.base.jsonschema_safe import (
    COST,
    INVALID,
    MAX_NS_PER_VALUE,
    NS_WALK_PER_UNIT,
    VALIDATION_BUDGET_NS,
    SchemaPath,
    has_lone_surrogate,
    params_schema_problem,
    params_schema_verdict,
    validation_budget_units,
    validation_error,
    value_cost_ns,
)
from dyntools.base.paramsize import TooDeep, params_units
from dyntools.base.reserved_names import underscore_problem
from dyntools.base.toolname import tool_name_problem
from dyntools.gate.capabilities import (
    Capabilities,
    DeclarationError,
    parse_capabilities,
    parse_exchanges,
)
from dyntools.gate.hostuse import url_problem
from dyntools.gate.literals import NotLiteral, literal_value
from dyntools.gate.metatext import METADATA_CONSTANTS, check_metadata_text, has_hidden_text

if TYPE_CHECKING:
    from typing import Any

# Re-exported for callers that read the cost model and the caller-schema rule from here.
__all__ = ["MAX_NS_PER_VALUE", "NS_WALK_PER_UNIT", "VALIDATION_BUDGET_NS", "Contract",
           "check_contract", "params_schema_problem", "validation_budget_units",
           "value_cost_ns"]

REQUIRED = {"NAME": "DT501", "DESCRIPTION": "DT502", "PARAMS": "DT503"}
# Reported by the visitor wherever they appear; not repeated as top-level shape findings.
REPORTED_ELSEWHERE = (ast.ClassDef, ast.AsyncFunctionDef, ast.Global, ast.Nonlocal, ast.Match)
EXAMPLE_KEYS = frozenset({"params", "result", "http"})
_MISSING = object()
_ASSIGNED_CAPABILITIES = -1  # a key no id() is: CAPABILITIES is assigned at the top level

Report = Callable[[ast.AST, str, str], None]


class Contract:
    """What the contract check learned: the constants as evaluated (node, value), the
    string NAME is bound to, and the parsed CAPABILITIES (None when the file declares none,
    or when the declaration is refused: `declared` tells the two apart)."""

    __slots__ = ("capabilities", "constants", "declared", "metadata_json", "name")

    def __init__(self, constants: dict[str, tuple[ast.expr, Any]] | None = None,
                 name: str | None = None, declared: bool = False,
                 capabilities: Capabilities | None = None,
                 metadata_json: str | None = None) -> None:
        self.constants = constants if constants is not None else {}
        self.name = name
        self.declared = declared
        self.capabilities = capabilities
        # JSON text of [NAME, DESCRIPTION, PARAMS(, EXAMPLES)] (dyntools.gate.metadata),
        # when all three are there and every value is JSON data.
        self.metadata_json = metadata_json


def check_contract(
    tree: ast.Module,
    function_yields: dict[ast.FunctionDef | ast.AsyncFunctionDef, bool],
    report: Report,
    *,
    expected_name: str | None = None,
    literals: dict[int, Any] | None = None,
) -> Contract:
    """Report contract findings. `expected_name`: the tool this file must be (its NAME);
    `literals`: values of top-level literals already evaluated, by id of their node."""
    known = dict(literals) if literals is not None else {}
    constants: dict[str, tuple[ast.expr, Any]] = {}
    seen: dict[str, int] = {}
    runs: list[ast.FunctionDef] = []

    def claim(name: str, node: ast.AST) -> None:
        if name in seen:
            report(node, "DT108", f"{name!r} is already bound on line {seen[name]}")
        else:
            seen[name] = getattr(node, "lineno", 1)

    for index, stmt in enumerate(tree.body):
        kind = type(stmt)
        if kind is ast.Import or kind is ast.ImportFrom:
            for alias in stmt.names:  # type: ignore[attr-defined]
                if alias.name != "*":
                    local = alias.asname or alias.name.split(".", 1)[0]
                    claim(local, alias)
        elif kind is ast.FunctionDef:
            claim(stmt.name, stmt)  # type: ignore[attr-defined]
            if stmt.name == "run":  # type: ignore[attr-defined]
                runs.append(stmt)  # type: ignore[arg-type]
        elif kind is ast.Assign or kind is ast.AnnAssign:
            _constant(stmt, constants, claim, known, report)  # type: ignore[arg-type]
        elif (
            index == 0
            and kind is ast.Expr
            and isinstance(stmt.value, ast.Constant)  # type: ignore[attr-defined]
            and isinstance(stmt.value.value, str)  # type: ignore[attr-defined]
        ):
            continue  # the module docstring
        elif not isinstance(stmt, REPORTED_ELSEWHERE):
            report(
                stmt,
                "DT101",
                f"{_describe(stmt)} at the top level is not allowed: only a docstring, imports, "
                "UPPERCASE constants and def statements may stand there",
            )

    for name, code in REQUIRED.items():
        if name not in constants:
            report(tree, code, f"{name} is required")
    blob = _metadata_json(constants)
    if blob is None or has_hidden_text(blob):
        check_metadata_text({name: node for name, (node, _) in constants.items()}, report)
    # Lone surrogates make a string that no UTF-8 writer accepts; one encode of the whole
    # metadata shows there are none (the usual case), else each constant is checked.
    surrogates = blob is None or not _utf8(blob)
    _check_name(constants.get("NAME"), expected_name, tree, report)
    _check_description(constants.get("DESCRIPTION"), surrogates, report)
    validator, per_value = _check_params(constants.get("PARAMS"), surrogates, report)
    contract = Contract(constants)
    if blob is not None and all(name in constants for name in REQUIRED):
        contract.metadata_json = blob
    declared = constants.get("NAME")
    if declared is not None and isinstance(declared[1], str):
        contract.name = declared[1]
    _check_capabilities(_ASSIGNED_CAPABILITIES in known, constants, contract, report)
    _check_examples(constants.get("EXAMPLES"), validator, per_value, blob is not None,
                    surrogates, contract, report)
    _check_run(runs, function_yields, report)
    return contract


def _metadata_json(constants: dict[str, tuple[ast.expr, Any]]) -> str | None:
    """All metadata constants as one JSON text, or None when one of them is not JSON data
    (tuples of keys, NaN, ...): then every check walks its constant on its own."""
    values = [constants[name][1] for name in METADATA_CONSTANTS if name in constants]
    try:
        return json.dumps(values, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _describe(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Expr):
        return "an expression statement"
    kind = type(stmt).__name__.lower()
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} statement"


def _constant(
    stmt: ast.Assign | ast.AnnAssign,
    constants: dict[str, tuple[ast.expr, Any]],
    claim: Callable[[str, ast.AST], None],
    known: dict[int, Any],
    report: Report,
) -> None:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    pairs: list[tuple[ast.expr, ast.expr | None]]
    if len(targets) == 1 and isinstance(targets[0], ast.Name):
        pairs = [(targets[0], stmt.value)]
    elif (
        len(targets) == 1
        and isinstance(targets[0], ast.Tuple | ast.List)
        and isinstance(stmt.value, ast.Tuple | ast.List)
        and len(targets[0].elts) == len(stmt.value.elts)
        and all(isinstance(t, ast.Name) for t in targets[0].elts)
    ):
        pairs = list(zip(targets[0].elts, stmt.value.elts, strict=True))  # `LOW, HIGH = 1, 9`
    else:
        report(stmt, "DT106", "a top-level assignment must bind names to literals, one name "
               "per value")
        return
    for target, value in pairs:
        assert isinstance(target, ast.Name)
        _bind_constant(target, value, stmt, constants, claim, known, report)


def _bind_constant(
    target: ast.Name,
    value: ast.expr | None,
    stmt: ast.stmt,
    constants: dict[str, tuple[ast.expr, Any]],
    claim: Callable[[str, ast.AST], None],
    known: dict[int, Any],
    report: Report,
) -> None:
    name = target.id
    if underscore_problem(name) is not None:
        return  # the visitor's DT301 says why
    problem = constant_name_problem(name)
    if problem is not None:
        report(target, "DT106", f"top-level name {name!r} {problem}")
        return
    claim(name, target)
    if value is None:
        report(stmt, "DT107", f"{name} is declared without a value")
        return
    if name == "CAPABILITIES":
        known[_ASSIGNED_CAPABILITIES] = True
    cached = known.get(id(value), _MISSING)
    if cached is not _MISSING:
        constants[name] = (value, cached)
        return
    try:
        constants[name] = (value, literal_value(value))
    except NotLiteral as exc:
        if isinstance(exc.node, ast.Constant):
            kind = type(exc.node.value).__name__
            why = (f"{kind} values are not allowed in constants (str, int, float, bool, None, "
                   "and lists, tuples, dicts and sets of them)")
        else:
            why = f"{type(exc.node).__name__} is evaluated at import time"
        report(exc.node, "DT107", f"{name} must be a literal; {why}")


# Names a top-level constant may not take, besides the builtins': the tool's entry point, the
# module dyntools provides, the names a code-mode script is given and answers with.
_TAKEN_NAMES = frozenset({"run", "host", "inputs", "tools", "result"})
_METADATA_UPPER = frozenset({*METADATA_CONSTANTS, "CAPABILITIES"})
_BUILTIN_NAMES = frozenset(dir(builtins))


def constant_name_problem(name: str) -> str | None:
    """Why `name` may not name a top-level constant (None when it may). A lowercase constant
    is held to the same rules as an UPPERCASE one (bound once, to a literal); it may not
    take a builtin's name (every read of it would look like the builtin), a name the host or
    a script gives meaning to, or a metadata name spelled in another case (`Name`, `params`:
    a reader would take it for the metadata)."""
    if name in _BUILTIN_NAMES:
        return "is a builtin's name: every read of it would look like the builtin"
    if name in _TAKEN_NAMES:
        return f"is reserved: {name} means something to dyntools (run, host, inputs, tools, " \
               "result)"
    upper = name.upper()
    if upper in _METADATA_UPPER and name != upper:
        return f"reads as the metadata constant {upper}: spell it {upper}, or pick another name"
    return None


def _check_name(entry: tuple[ast.expr, Any] | None, expected: str | None, tree: ast.Module,
                report: Report) -> None:
    if entry is None:
        return
    node, value = entry
    problem = tool_name_problem(value)
    if problem:
        report(node, "DT504", f"NAME: {problem}")
    elif expected is not None and value != expected:
        # At the statement, where a reader (and a model fixing its file) looks for NAME.
        stmt = next((s for s in tree.body if _binds(s, "NAME")), node)
        report(stmt, "DT504", f"NAME is {value!r} but the requested tool is {expected!r}; "
               f"set NAME = {expected!r}")


def _check_description(entry: tuple[ast.expr, Any] | None, surrogates: bool,
                       report: Report) -> None:
    if entry is None:
        return
    node, value = entry
    if not isinstance(value, str) or not value.strip():
        report(node, "DT505", "DESCRIPTION must be a non-empty string")
    elif surrogates and has_lone_surrogate(value):
        report(node, "DT505", "DESCRIPTION holds a lone surrogate escape (\\ud800-\\udfff), "
               "which is not Unicode text: no UTF-8 writer (an MCP server's tool list) accepts it")


def _check_params(entry: tuple[ast.expr, Any] | None, surrogates: bool,
                  report: Report) -> tuple[Any, int]:
    """The validator for an acceptable PARAMS and its cost per params value (None, 0 when
    PARAMS is refused or missing)."""
    if entry is None:
        return None, 0
    node, schema = entry
    verdict = params_schema_verdict(schema, surrogates=surrogates)
    if verdict.problem is not None:
        code = "DT506" if verdict.kind == INVALID else "DT514" if verdict.kind == COST \
            else "DT507"
        report(_node_at(node, verdict.path) if verdict.path else node, code, verdict.problem)
        return None, 0
    return verdict.validator, verdict.per_value_ns


def _node_at(node: ast.expr, path: SchemaPath) -> ast.expr:
    """The literal at `path` inside a display (as far down as the display goes), so a
    finding points at the offending value, not at the start of the constant."""
    for part in path:
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == part:
                    node = value
                    break
            else:
                return node
        elif isinstance(node, ast.List | ast.Tuple) and isinstance(part, int) \
                and 0 <= part < len(node.elts):
            node = node.elts[part]
        else:
            return node
    return node


def _check_capabilities(bound: bool, constants: dict[str, tuple[ast.expr, Any]],
                        contract: Contract, report: Report) -> None:
    """CAPABILITIES, when the file has one: a well-formed declaration, and secrets only
    beside an http host (the host adds a secret to requests to its own hosts only).
    `bound`: the file binds the name at the top level (perhaps not to a literal)."""
    entry = constants.get("CAPABILITIES")
    if entry is None:
        contract.declared = bound
        return  # not a literal: DT107 said so
    contract.declared = True
    node, value = entry
    try:
        capabilities = parse_capabilities(value)
    except DeclarationError as exc:
        report(_node_at(node, exc.path), "DT515", f"CAPABILITIES: {exc.message}")
        return
    if capabilities.secrets and not capabilities.http:
        report(_node_at(node, ("secrets",)), "DT515",
               "CAPABILITIES declares secrets but no http host: the host adds a secret only to "
               "requests to the hosts it is configured for, so declare those hosts in \"http\"")
        return
    if contract.name is not None and contract.name in capabilities.tools:
        report(_node_at(node, ("tools", capabilities.tools.index(contract.name))), "DT515",
               f"CAPABILITIES['tools'] lists {contract.name!r}, this tool itself: a tool may "
               "not call itself")
        return
    contract.capabilities = capabilities


def _binds(stmt: ast.stmt, name: str) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else \
        [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
    return any(isinstance(t, ast.Name) and t.id == name for t in targets)


MAX_EXAMPLES = 64


def _check_examples(
    entry: tuple[ast.expr, Any] | None, validator: Any, per_value: int, all_json: bool,
    surrogates: bool, contract: Contract, report: Report,
) -> None:
    if entry is None:
        return
    node, examples = entry
    if not isinstance(examples, list):
        report(node, "DT508", 'EXAMPLES must be a list of {"params": ..., "result": ...}')
        return
    if len(examples) > MAX_EXAMPLES:
        # Every example runs in the sandbox before a version is activated, each up to the
        # call timeout: thousands of them would hold verification for hours.
        report(node, "DT508", f"EXAMPLES has {len(examples)} entries; at most {MAX_EXAMPLES} "
               "are run at verification")
        return
    element_nodes = node.elts if isinstance(node, ast.List) else []
    budget_units = validation_budget_units(per_value)
    for index, example in enumerate(examples):
        where = element_nodes[index] if index < len(element_nodes) else node
        if (
            not isinstance(example, dict)
            or not {"params", "result"} <= example.keys() <= EXAMPLE_KEYS
            or not isinstance(example["params"], dict)
            or not isinstance(example["result"], dict)
        ):
            report(
                where,
                "DT508",
                f'EXAMPLES[{index}] must be {{"params": {{...}}, "result": {{...}}}} with '
                'dicts for both (and, for a tool that declares http, optionally "http": '
                "[recorded exchanges])",
            )
            continue
        if not all_json:
            try:
                json.dumps(example, allow_nan=False)
            except (TypeError, ValueError) as exc:
                report(where, "DT508", f"EXAMPLES[{index}] is not JSON: {exc}")
                continue
        if surrogates and has_lone_surrogate(example):
            report(where, "DT508", f"EXAMPLES[{index}] holds a lone surrogate escape "
                   "(\\ud800-\\udfff), which is not Unicode text")
            continue
        if "http" in example and not _check_exchanges(where, index, example["http"],
                                                      contract, report):
            continue
        if validator is None:
            continue
        try:
            units = params_units(example["params"], budget_units)
        except TooDeep as exc:
            report(where, "DT508", f"EXAMPLES[{index}] {exc}")
            continue
        if units > budget_units:
            report(where, "DT514", f"EXAMPLES[{index}] params are too large to validate against "
                   f"PARAMS within {2 * VALIDATION_BUDGET_NS // 1_000_000} ms (more than "
                   f"{budget_units} values and characters at up to {per_value} ns each); "
                   "keep examples small")
            continue
        problem = validation_error(validator, example["params"])
        if problem is not None:
            report(where, "DT509", f"EXAMPLES[{index}] params do not match PARAMS {problem}")


def _check_exchanges(where: ast.expr, index: int, value: Any, contract: Contract,
                     report: Report) -> bool:
    """An example's recorded "http" exchanges: well formed, in a tool that declares http,
    each to a declared host. False when the example has a finding."""
    try:
        exchanges = parse_exchanges(value)
    except DeclarationError as exc:
        report(_node_at(where, exc.path), "DT516", f"EXAMPLES[{index}]: {exc.message}")
        return False
    capabilities = contract.capabilities
    if capabilities is None and contract.declared:
        return False  # the declaration itself is refused (DT515): nothing to hold URLs to
    if capabilities is None or not capabilities.http:
        report(_node_at(where, ("http",)), "DT516", f"EXAMPLES[{index}] records HTTP "
               "exchanges, but the tool declares no CAPABILITIES[\"http\"] hosts")
        return False
    clean = True
    for position, exchange in enumerate(exchanges):
        problem = url_problem(exchange.url, capabilities)
        if problem is not None:
            clean = False
            report(_node_at(where, ("http", position, "request", "url")), "DT517",
                   f"EXAMPLES[{index}] http[{position}]: {problem}")
    return clean


def _check_run(
    runs: list[ast.FunctionDef],
    function_yields: dict[ast.FunctionDef | ast.AsyncFunctionDef, bool],
    report: Report,
) -> None:
    if not runs:
        report(ast.Module(body=[], type_ignores=[]), "DT601", "the file must define run(params)")
        return
    run = runs[0]
    args = run.args
    positional = [*args.posonlyargs, *args.args]
    if (
        len(positional) != 1
        or args.vararg
        or args.kwarg
        or args.kwonlyargs
        or args.defaults
    ):
        report(run, "DT602", "run must take exactly one positional parameter: run(params)")
    if function_yields.get(run):
        report(run, "DT603", "run must return a dict; it may not be a generator")
