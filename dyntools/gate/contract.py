"""The tool-file contract (DESIGN.md §1): the top-level shape and the metadata constants.

The visitor reports constructs that are refused anywhere (classes, async, global, match);
this module reports what is wrong at the top level specifically and checks NAME, DESCRIPTION,
PARAMS and EXAMPLES as data, with PARAMS validated by a real JSON Schema implementation.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import jsonschema_rs

from dyntools.gate.literals import NotLiteral, literal_value
from dyntools.gate.metatext import check_metadata_text
from dyntools.paramsize import TooDeep, params_units
from dyntools.toolname import tool_name_problem

CONSTANT_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
REQUIRED = {"NAME": "DT501", "DESCRIPTION": "DT502", "PARAMS": "DT503"}
# Reported by the visitor wherever they appear; not repeated as top-level shape findings.
REPORTED_ELSEWHERE = (ast.ClassDef, ast.AsyncFunctionDef, ast.Global, ast.Nonlocal, ast.Match)

Report = Callable[[ast.AST, str, str], None]


def check_contract(
    tree: ast.Module,
    function_yields: dict[ast.FunctionDef | ast.AsyncFunctionDef, bool],
    report: Report,
) -> str | None:
    """Report contract findings; return the string NAME is bound to (None if it is not)."""
    constants: dict[str, tuple[ast.expr, Any]] = {}
    seen: dict[str, int] = {}
    runs: list[ast.FunctionDef] = []

    def claim(name: str, node: ast.AST) -> None:
        if name in seen:
            report(node, "DT108", f"{name!r} is already bound on line {seen[name]}")
        else:
            seen[name] = getattr(node, "lineno", 1)

    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                if alias.name != "*":
                    local = alias.asname or alias.name.split(".", 1)[0]
                    claim(local, alias)
        elif isinstance(stmt, ast.FunctionDef):
            claim(stmt.name, stmt)
            if stmt.name == "run":
                runs.append(stmt)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            _constant(stmt, constants, claim, report)
        elif (
            index == 0
            and isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
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
    check_metadata_text({name: node for name, (node, _) in constants.items()}, report)
    _check_name(constants.get("NAME"), report)
    _check_description(constants.get("DESCRIPTION"), report)
    validator = _check_params(constants.get("PARAMS"), report)
    per_value = value_cost_ns(constants["PARAMS"][1]) if validator is not None else 0
    _check_examples(constants.get("EXAMPLES"), validator, per_value, report)
    _check_run(runs, function_yields, report)
    declared = constants.get("NAME")
    return declared[1] if declared is not None and isinstance(declared[1], str) else None


def _describe(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Expr):
        return "an expression statement"
    kind = type(stmt).__name__.lower()
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} statement"


def _constant(
    stmt: ast.Assign | ast.AnnAssign,
    constants: dict[str, tuple[ast.expr, Any]],
    claim: Callable[[str, ast.AST], None],
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
        report(stmt, "DT106", "a top-level assignment must bind UPPERCASE names to literals, "
               "one name per value")
        return
    for target, value in pairs:
        assert isinstance(target, ast.Name)
        _bind_constant(target, value, stmt, constants, claim, report)


def _bind_constant(
    target: ast.Name,
    value: ast.expr | None,
    stmt: ast.stmt,
    constants: dict[str, tuple[ast.expr, Any]],
    claim: Callable[[str, ast.AST], None],
    report: Report,
) -> None:
    name = target.id
    if not CONSTANT_NAME.fullmatch(name):
        report(target, "DT106", f"top-level name {name!r} must be an UPPERCASE constant")
        return
    claim(name, target)
    if value is None:
        report(stmt, "DT107", f"{name} is declared without a value")
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


def _check_name(entry: tuple[ast.expr, Any] | None, report: Report) -> None:
    if entry is None:
        return
    node, value = entry
    problem = tool_name_problem(value)
    if problem:
        report(node, "DT504", f"NAME: {problem}")


def _check_description(entry: tuple[ast.expr, Any] | None, report: Report) -> None:
    if entry is None:
        return
    node, value = entry
    if not isinstance(value, str) or not value.strip():
        report(node, "DT505", "DESCRIPTION must be a non-empty string")
    elif _has_lone_surrogate(value):
        report(node, "DT505", "DESCRIPTION holds a lone surrogate escape (\\ud800-\\udfff), "
               "which is not Unicode text: no UTF-8 writer (an MCP server's tool list) accepts it")


def _has_lone_surrogate(value: Any) -> bool:
    """True when a string in `value` cannot be written as UTF-8 ('\\ud800' in a literal)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except (TypeError, ValueError):
        return False  # not JSON: reported by the caller's own check
    return False


def _refuse_retrieval(uri: str) -> Any:
    raise ValueError(f"the gate retrieves no schema documents ({uri})")


def _error_text(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc).splitlines()[0]
    path = getattr(exc, "instance_path", None)
    where = "/".join(str(p) for p in path) if path else "(root)"
    return f"at {where}: {message}"


# Validators are cached for schemas up to this size only: a compiled validator costs up to
# ~20x its schema's text (each pattern is a compiled regex), and 1,024 cached 240 KB schemas
# held ~4.6 GiB in a long-running host (one service gating files from many authors); now
# at most ~40 MiB.
MAX_CACHED_SCHEMA_CHARS = 16384
# PARAMS patterns run in the host on every call's params. fancy-regex (jsonschema-rs's default)
# backtracks up to a million steps per string: '^(a|a?)+\\1$' under anyOf cost 25 ms for each
# 36-byte string, ~700 s of stalled host (GIL held) per MB of params.
LINEAR_TIME_PATTERNS = jsonschema_rs.RegexOptions()


SchemaPath = tuple[str | int, ...]


@lru_cache(maxsize=128)
def _compile_schema(canonical: str) -> tuple[str | None, Any, SchemaPath | None]:
    """Validate a schema (as canonical JSON) against its metaschema and build its validator.

    jsonschema-rs is a real JSON Schema implementation (drafts 4 to 2020-12, 2020-12 when
    no $schema is given) whose regular expressions cannot backtrack for ever, so checking a
    crafted pattern against a crafted example cannot hang the gate. Nothing is retrieved:
    references must stay inside the document. Returns (problem, validator, where): `where`
    is the path inside the schema of the value the problem is about, when one is known.
    """
    schema = json.loads(canonical)
    remote, where = _remote_reference(schema)
    if remote is None:
        remote = _fan_out_problem(schema)
    if remote is not None:
        return f"PARAMS {remote}", None, where
    try:
        jsonschema_rs.meta.validate(schema)
        # The linear-time engine: a pattern that needs backtracking (backreferences,
        # lookaround) is refused here, so the host's validator never backtracks either.
        validator = jsonschema_rs.validator_for(schema, retriever=_refuse_retrieval,
                                                pattern_options=LINEAR_TIME_PATTERNS)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as exc:
        text = _error_text(exc)
        if text.endswith('is not a "regex"'):
            text += " (patterns must run in linear time: no backreferences or lookaround)"
        path = getattr(exc, "instance_path", None)
        return (f"PARAMS is not a valid JSON Schema {text}", None,
                tuple(path) if isinstance(path, list) else None)
    return None, validator, None


def _quoted(value: Any, limit: int = 80) -> str:
    """repr(value), cut to `limit` characters: findings quote what they are about, not
    5,000 digits of it."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 5]}...{text[-2:]}"


_REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")


def _remote_reference(schema: Any) -> tuple[str | None, SchemaPath | None]:
    """A reference that leaves the document, or a chain of references that never ends, and
    where the reference is in the schema."""
    stack: list[tuple[Any, SchemaPath]] = [(schema, ())]
    local: list[tuple[str, SchemaPath]] = []
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in _REF_KEYS:
                    if not isinstance(value, str) or not value.startswith("#"):
                        return (f"refers to {_quoted(value)}; only local references ('#/...') "
                                "are allowed"), (*path, key)
                    local.append((value, (*path, key)))
                stack.append((value, (*path, key)))
        elif isinstance(item, list):
            stack.extend((value, (*path, index)) for index, value in enumerate(item))
    local.reverse()  # document order
    for ref, where in local:
        problem = _ref_chain_problem(schema, ref)
        if problem:
            return problem, where
    if not local:
        return None, None
    problem, culprit = _expansion_problem(schema, [ref for ref, _ in local])
    return problem, next((where for ref, where in local if ref == culprit), None)


# Subschemas PARAMS may reach once every reference is inlined. Validation costs at most
# (inlined subschemas) x (params nodes); references that double at each step, or recurse,
# make that exponential in a params value a few dozen levels deep, and jsonschema-rs cannot
# be interrupted: the gate (EXAMPLES) and the host (every call's params) would hang.
MAX_INLINED_SUBSCHEMAS = 10_000


def _expansion_problem(schema: Any, refs: list[str]) -> tuple[str | None, str | None]:
    """Recursive references, or references that inline into a huge schema (and the
    reference the problem is about, when there is one)."""
    for ref in refs:
        if ref != "#" and not ref.startswith("#/"):
            return (f"refers to {_quoted(ref)}; only JSON-pointer references ('#' or '#/...') "
                    "are allowed, so the gate can see where each one leads"), ref
    nested_id = _nested_resource_id(schema)
    if nested_id is not None:
        return (f"declares a nested {nested_id}, which changes what its references resolve "
                "to; keep one schema resource"), None
    done: dict[int, int] = {}
    active: set[int] = set()
    raw = 0
    stack: list[tuple[Any, bool]] = [(schema, False)]
    while stack:
        node, finished = stack.pop()
        edges = _schema_edges(schema, node)
        if finished:
            total = 1 if isinstance(node, dict) else 0
            raw += total
            for _, child in edges:
                total += done[id(child)]
            done[id(node)] = min(total, 1 << 40)  # past any limit; keeps the sums small
            active.discard(id(node))
            continue
        if id(node) in done:
            continue
        active.add(id(node))
        stack.append((node, True))
        for via, child in edges:
            if id(child) in active:
                return (f"is recursive ({_quoted(via)} leads back into itself): validating "
                        "params against a recursive schema can take time exponential in their "
                        "depth"), via
            if id(child) not in done:
                stack.append((child, False))
    inlined = done[id(schema)]
    if inlined > max(raw, MAX_INLINED_SUBSCHEMAS):
        return (f"references inline into more than {max(raw, MAX_INLINED_SUBSCHEMAS)} "
                "subschemas: validating params against it can take time exponential in the "
                "number of references"), None
    return None, None


# Subschemas that may apply to one params value. The host validates every call's params in
# its own process, holding the GIL (jsonschema-rs cannot be interrupted): an anyOf of 3,000
# array branches against a 1.2 MB params array cost 14.7 s of stalled host per call. With at
# most 64 subschemas per value, validation stays within ~64 evaluations per params node.
MAX_SUBSCHEMAS_PER_VALUE = 64
_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE_ONE = ("not", "if", "then", "else")
_SAME_VALUE_MAPS = ("dependentSchemas", "dependencies")
_OBJECT_MEMBERS = ("additionalProperties", "unevaluatedProperties", "propertyNames")
_ARRAY_ITEMS = ("contains", "additionalItems", "unevaluatedItems")


def _fan_out_problem(schema: Any) -> str | None:
    """More than MAX_SUBSCHEMAS_PER_VALUE subschemas may apply to one params value.

    Per subschema: `here` counts the subschemas applied to the same value (itself, allOf /
    anyOf / oneOf / not / if / then / else / dependentSchemas branches, reference targets);
    `below` bounds those applied to any one member of an object (the worst of `properties`,
    all `patternProperties`, `additionalProperties`, ...) and of an array (`items`,
    `prefixItems`, `contains`, ...), summed over the same-value ones. Over-approximate by
    design; references are already known to be acyclic here.
    """
    here: dict[int, int] = {}
    below: dict[int, tuple[int, int]] = {}
    cap = MAX_SUBSCHEMAS_PER_VALUE + 1

    def worst(node: Any) -> int:
        return max(here[id(node)], *below[id(node)])

    applied: dict[int, tuple[list[Any], Members]] = {}
    stack: list[tuple[Any, bool]] = [(schema, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if key not in applied:
            applied[key] = _applied_subschemas(schema, node)
        same, members = applied[key]
        if not finished:
            if id(node) in here:
                continue
            stack.append((node, True))
            nested = [c for pair in members for group in pair for c in group]
            stack.extend((c, False) for c in (*same, *nested) if id(c) not in here)
            continue
        if id(node) in here:
            continue
        bounds = []
        for position, (pick_one, all_of) in enumerate(members):
            own = max((worst(c) for c in pick_one), default=0) + sum(worst(c) for c in all_of)
            bounds.append(min(cap, own + sum(below[id(c)][position] for c in same)))
        here[id(node)] = min(cap, 1 + _slow_enum_entries(node) + sum(here[id(c)] for c in same))
        below[id(node)] = (bounds[0], bounds[1])
    count = worst(schema)
    if count > MAX_SUBSCHEMAS_PER_VALUE:
        return (f"lets more than {MAX_SUBSCHEMAS_PER_VALUE} subschemas apply to one params value "
                "(allOf/anyOf/oneOf branches, patternProperties, references, enum entries that "
                "are floats, arrays or objects): validating large params against it would stall "
                "the host")
    return None


def _slow_enum_entries(node: Any) -> int:
    """Enum entries jsonschema-rs compares one by one at ~1 us each (floats, arrays, objects):
    each counts as a subschema. Strings, integers, booleans and null are looked up at once."""
    if not isinstance(node, dict) or not isinstance(node.get("enum"), list):
        return 0
    return sum(1 for entry in node["enum"]
               if isinstance(entry, float | list | dict))


Members = tuple[tuple[list[Any], list[Any]], tuple[list[Any], list[Any]]]


# What validating params costs the host, per params value, in nanoseconds: an upper-bound
# model measured on jsonschema-rs (bench/validation.py prints the measured worst cases next
# to the estimates). The host validates in its own process holding the GIL, and jsonschema-rs
# cannot be interrupted, so every call's params are refused when `units x cost` exceeds
# VALIDATION_BUDGET_NS (dyntools.toolmeta). Units: every value, plus every character of a
# string or a key; a value costs at most the weights of the subschemas that may apply to it.
# Measured on a 2-core machine shared with other jobs (bench/validation.py), which is about
# twice what an idle machine takes: the margin is the safety factor.
NS_PER_SUBSCHEMA = 60            # allOf of 63 `minimum`s: 3.5 us per integer
NS_PER_SLOW_ENUM_ENTRY = 8_000   # a float, array or object entry: ~6 us per comparison
NS_PER_REQUIRED_NAME = 40        # `dependentRequired` of 2,400 names: ~55 us per object
NS_UNIQUE_ITEMS = 1_500          # hashing an item: ~750 ns per float in a 1.5 MB array
# multipleOf is checked with arbitrary-precision arithmetic: ~3 us per float even when it is
# integral, ~5 us when it is not, and more with the exponent (5e-324: 30 us per number).
NS_MULTIPLE_OF = 10_000
NS_MULTIPLE_OF_PER_DECADE = 600
# unevaluatedProperties/Items re-evaluate the subschemas beside them to collect annotations.
NS_UNEVALUATED_PER_SIBLING = 200
# No call may hold the host longer than 100 ms in params validation: params whose estimated
# cost (the model above) exceeds half of that are refused before validation starts, which
# leaves room for the model's error and a loaded machine (bench/validation.py measures the
# worst cases the bound lets through).
VALIDATION_BUDGET_NS = 50_000_000
# Counting a params value's units before validation (dyntools.paramsize) costs up to this.
NS_WALK_PER_UNIT = 40


def validation_budget_units(per_value_ns: int) -> int:
    """How many params units (values and characters) may be validated within the budget
    against a schema whose values cost up to `per_value_ns` each."""
    return VALIDATION_BUDGET_NS // (max(0, per_value_ns) + NS_WALK_PER_UNIT)
# Refused at the gate: a schema for which one value may cost more than this.
MAX_NS_PER_VALUE = 100_000
# Refused at the gate: multipleOf with a magnitude outside this range (5e-324 cost 30 us
# per number and 7-8 s of stalled host for one 3.6 MB call).
MIN_MULTIPLE_OF = 1e-9
MAX_MULTIPLE_OF = 2.0 ** 53


def _own_cost(node: Any, siblings: int) -> int:
    """The cost of one subschema's own keywords on one value (not its subschemas')."""
    if not isinstance(node, dict):
        return 0
    cost = NS_PER_SUBSCHEMA + NS_PER_SLOW_ENUM_ENTRY * _slow_enum_entries(node)
    multiple = node.get("multipleOf")
    if isinstance(multiple, int | float) and not isinstance(multiple, bool) and multiple > 0:
        try:
            decades = min(400, abs(math.floor(math.log10(multiple))))
        except (OverflowError, ValueError):  # an int past float range, an infinity
            decades = 400
        cost += NS_MULTIPLE_OF + NS_MULTIPLE_OF_PER_DECADE * decades
    required = node.get("required")
    if isinstance(required, list):
        cost += NS_PER_REQUIRED_NAME * len(required)
    for key in ("dependentRequired", "dependencies"):
        table = node.get(key)
        if isinstance(table, dict):
            cost += NS_PER_REQUIRED_NAME * sum(
                1 + (len(names) if isinstance(names, list) else 0) for names in table.values())
    if "unevaluatedProperties" in node or "unevaluatedItems" in node:
        cost += NS_UNEVALUATED_PER_SIBLING * siblings
    return cost


def value_cost_ns(schema: Any) -> int:
    """An upper bound, in ns, on what validating one params value (a number, a string
    character, an object or array node) against `schema` costs: the heaviest set of
    subschemas that may apply to one value, weighted by their keywords. References must be
    acyclic (the gate's rules); a recursive schema gets MAX_NS_PER_VALUE * 1000."""
    here: dict[int, int] = {}
    below: dict[int, tuple[int, int]] = {}
    applied: dict[int, tuple[list[Any], Members]] = {}
    cap = MAX_NS_PER_VALUE * 1000
    unique = False
    stack: list[tuple[Any, bool, int]] = [(schema, False, 0)]

    def worst(node: Any) -> int:
        return max(here[id(node)], *below[id(node)])

    while stack:
        node, finished, depth = stack.pop()
        key = id(node)
        if depth > 10_000:
            return cap
        if key not in applied:
            applied[key] = _applied_subschemas(schema, node)
            if isinstance(node, dict) and node.get("uniqueItems") is True:
                unique = True
        same, members = applied[key]
        if not finished:
            if key in here:
                continue
            stack.append((node, True, depth))
            nested = [c for pair in members for group in pair for c in group]
            stack.extend((c, False, depth + 1) for c in (*same, *nested) if id(c) not in here)
            continue
        if key in here:
            continue
        if any(id(c) not in here for c in same) or any(
                id(c) not in here for pair in members for group in pair for c in group):
            return cap  # a reference cycle: no finite bound
        bounds = []
        for position, (pick_one, all_of) in enumerate(members):
            own = max((worst(c) for c in pick_one), default=0) + sum(worst(c) for c in all_of)
            bounds.append(min(cap, own + sum(below[id(c)][position] for c in same)))
        here[key] = min(cap, _own_cost(node, len(same)) + sum(here[id(c)] for c in same))
        below[key] = (bounds[0], bounds[1])
    return min(cap, worst(schema) + (NS_UNIQUE_ITEMS if unique else 0))


def _applied_subschemas(schema: Any, node: Any) -> tuple[list[Any], Members]:
    """The subschemas a subschema applies to the same value, and to an object's members and
    an array's items (each as: at most one of these, all of these)."""
    same: list[Any] = []
    obj_one: list[Any] = []
    obj_all: list[Any] = []
    arr_one: list[Any] = []
    arr_all: list[Any] = []
    members: Members = ((obj_one, obj_all), (arr_one, arr_all))
    if not isinstance(node, dict):
        return same, members

    def schemas(values: Any) -> list[Any]:
        return [c for c in values if isinstance(c, dict | bool)]

    for key in _SAME_VALUE_LISTS:
        if isinstance(node.get(key), list):
            same.extend(schemas(node[key]))
    for key in _SAME_VALUE_ONE:
        if isinstance(node.get(key), dict | bool):
            same.append(node[key])
    for key in _SAME_VALUE_MAPS:
        if isinstance(node.get(key), dict):
            same.extend(schemas(node[key].values()))
    for key in _REF_KEYS:
        ref = node.get(key)
        if isinstance(ref, str):
            target = _resolve_pointer(schema, ref)
            if isinstance(target, dict | bool):
                same.append(target)
    if isinstance(node.get("properties"), dict):
        obj_one.extend(schemas(node["properties"].values()))
    if isinstance(node.get("patternProperties"), dict):
        obj_all.extend(schemas(node["patternProperties"].values()))
    for key in _OBJECT_MEMBERS:
        if isinstance(node.get(key), dict | bool):
            obj_all.append(node[key])
    items = node.get("items")
    if isinstance(items, list):
        arr_one.extend(schemas(items))
    elif isinstance(items, dict | bool):
        arr_all.append(items)
    if isinstance(node.get("prefixItems"), list):
        arr_one.extend(schemas(node["prefixItems"]))
    for key in _ARRAY_ITEMS:
        if isinstance(node.get(key), dict | bool):
            arr_all.append(node[key])
    return same, members


def _schema_edges(schema: Any, node: Any) -> list[tuple[str | None, Any]]:
    """The containers a node leads to: its own values and the targets of its references."""
    edges: list[tuple[str | None, Any]] = []
    values = node.values() if isinstance(node, dict) else node
    for value in values:
        if isinstance(value, dict | list):
            edges.append((None, value))
    if isinstance(node, dict):
        for key in _REF_KEYS:
            ref = node.get(key)
            if isinstance(ref, str):
                target = _resolve_pointer(schema, ref)
                if isinstance(target, dict | list):
                    edges.append((ref, target))
    return edges


def _nested_resource_id(schema: Any) -> str | None:
    """A `$id` (or draft-4 `id`) below the root: references under it resolve against it."""
    draft4 = isinstance(schema, dict) and "draft-04" in str(schema.get("$schema", ""))
    keys = ("$id", "id") if draft4 else ("$id",)
    stack = [v for v in schema.values() if isinstance(v, dict | list)]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key in keys:
                if isinstance(item.get(key), str):
                    return key
            stack.extend(v for v in item.values() if isinstance(v, dict | list))
        else:
            stack.extend(v for v in item if isinstance(v, dict | list))
    return None


# An array index in a JSON pointer (RFC 6901): "0" or ASCII digits without a leading zero.
# str.isdigit() also accepts '²' and '٣', which int() refuses, and int() refuses 5,000
# digits: both crashed this rule (DT902) before.
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]{0,17}")


def _resolve_pointer(schema: Any, ref: str) -> Any:
    target = schema
    for raw in ref[1:].split("/")[1:] if ref not in ("#", "#/") else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif (isinstance(target, list) and _ARRAY_INDEX.fullmatch(part)
              and int(part) < len(target)):
            target = target[int(part)]
        else:
            return _MISSING
    return target


_MISSING = object()


def _ref_chain_problem(schema: Any, ref: str) -> str | None:
    """Follow schemas that are nothing but a reference; a loop never reaches a schema (some
    validators, python-jsonschema among them, recurse on it until they crash)."""
    chain = [ref]
    current = ref
    while True:
        target = _resolve_pointer(schema, current)
        if target is _MISSING:
            if current.startswith("#/"):
                return (f"reference {_quoted(current)} does not resolve (each part must name a "
                        "key, or an array index written 0 or 1-9 then ASCII digits)")
            return None
        if not (isinstance(target, dict) and set(target) <= {"$ref", "$comment"}
                and isinstance(target.get("$ref"), str)):
            return None
        current = target["$ref"]
        if current in chain:
            loop = " -> ".join(_quoted(ref) for ref in [*chain, current])
            return f"references loop without reaching a schema ({loop})"
        chain.append(current)


def _check_params(entry: tuple[ast.expr, Any] | None, report: Report) -> Any:
    if entry is None:
        return None
    node, schema = entry
    if not isinstance(schema, dict):
        report(node, "DT506", "PARAMS must be a dict (a JSON Schema object)")
        return None
    try:
        canonical = json.dumps(schema, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        report(node, "DT506", f"PARAMS is not JSON: {exc}")
        return None
    if _has_lone_surrogate(schema):
        report(node, "DT506", "PARAMS holds a lone surrogate escape (\\ud800-\\udfff), which is "
               "not Unicode text")
        return None
    if len(canonical) <= MAX_CACHED_SCHEMA_CHARS:
        problem, validator, where = _compile_schema(canonical)
    else:
        problem, validator, where = _compile_schema.__wrapped__(canonical)
    if problem:
        report(_node_at(node, where) if where else node, "DT506", problem)
        return None
    costly = _costly_keyword(schema)
    if costly is not None:
        message, where = costly
        report(_node_at(node, where), "DT514", message)
        return None
    per_value = value_cost_ns(schema)
    if per_value > MAX_NS_PER_VALUE:
        report(node, "DT514", f"validating one params value against PARAMS may cost about "
               f"{per_value / 1000:.0f} us (at most {MAX_NS_PER_VALUE // 1000} us): the host "
               "validates every call's params and cannot be interrupted; use fewer branches, "
               "enum entries that are floats/arrays/objects, required/dependentRequired names "
               "or multipleOf")
        return None
    if schema.get("type") != "object":
        report(node, "DT507", 'PARAMS must declare "type": "object"')
        return None
    return validator


def _node_at(node: ast.expr, path: SchemaPath) -> ast.expr:
    """The literal at `path` inside a PARAMS display (as far down as the display goes), so a
    finding points at the offending value, not at the start of PARAMS."""
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


def _costly_keyword(schema: Any) -> tuple[str, SchemaPath] | None:
    """A `multipleOf` whose magnitude makes each number cost tens of microseconds."""
    stack: list[tuple[Any, SchemaPath]] = [(schema, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            multiple = item.get("multipleOf")
            if (isinstance(multiple, int | float) and not isinstance(multiple, bool)
                    and not MIN_MULTIPLE_OF <= multiple <= MAX_MULTIPLE_OF):
                return (f"multipleOf {_quoted(multiple, 30)} is outside "
                        f"{MIN_MULTIPLE_OF:g}..2**53: jsonschema checks it with "
                        "arbitrary-precision arithmetic on every number (5e-324 cost 30 us "
                        "per number, 7-8 s of stalled host for one 3.6 MB call); use a "
                        "multipleOf in that range, or check precision in run()"
                        ), (*path, "multipleOf")
            stack.extend((value, (*path, key)) for key, value in item.items()
                         if isinstance(value, dict | list))
        elif isinstance(item, list):
            stack.extend((value, (*path, index)) for index, value in enumerate(item)
                         if isinstance(value, dict | list))
    return None


def params_schema_problem(schema: Any) -> str | None:
    """Why `schema` could not be a tool's PARAMS under the gate's rules (DT506/DT507: a JSON
    Schema object of type object, linear-time patterns, no remote references, bounded
    fan-out), or None. For schemas that arrive from callers (an MCP client's params_schema)
    and are compiled in the host."""
    problems: list[str] = []
    _check_params((ast.Constant(None), schema),
                  lambda node, code, message: problems.append(message))
    return problems[0] if problems else None


MAX_EXAMPLES = 64


def _check_examples(
    entry: tuple[ast.expr, Any] | None, validator: Any, per_value: int, report: Report
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
    for index, example in enumerate(examples):
        where = element_nodes[index] if index < len(element_nodes) else node
        if (
            not isinstance(example, dict)
            or set(example) != {"params", "result"}
            or not isinstance(example["params"], dict)
            or not isinstance(example["result"], dict)
        ):
            report(
                where,
                "DT508",
                f'EXAMPLES[{index}] must be {{"params": {{...}}, "result": {{...}}}} with '
                "dicts for both",
            )
            continue
        try:
            json.dumps(example, allow_nan=False)
        except (TypeError, ValueError) as exc:
            report(where, "DT508", f"EXAMPLES[{index}] is not JSON: {exc}")
            continue
        if _has_lone_surrogate(example):
            report(where, "DT508", f"EXAMPLES[{index}] holds a lone surrogate escape "
                   "(\\ud800-\\udfff), which is not Unicode text")
            continue
        if validator is None:
            continue
        budget_units = validation_budget_units(per_value)
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
        try:
            validator.validate(example["params"])
        except (jsonschema_rs.ValidationError, ValueError) as exc:
            report(
                where,
                "DT509",
                f"EXAMPLES[{index}] params do not match PARAMS {_error_text(exc)}",
            )


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
