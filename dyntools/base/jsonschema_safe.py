"""JSON Schema for tool params: the one module for the gate and the host.

    verdict = params_schema_verdict(schema)   # the gate's PARAMS rules, cached by content
    verdict.problem, verdict.kind, verdict.path, verdict.validator, verdict.per_value_ns
    safe = host_validator(schema)              # a compiled validator for a host-side schema
    safe.validator, safe.budget_units          # (SchemaError names what is wrong)

jsonschema-rs is a real JSON Schema implementation (drafts 4 to 2020-12, 2020-12 when no
`$schema` is given). Every validator built here uses its linear-time regular expressions
(`pattern_options`), so no pattern can backtrack for ever in the host, and retrieves nothing:
references must stay inside the document. The gate holds a tool's PARAMS to more than that
(no remote or recursive references, bounded fan-out, a cost model per params value, see
below), because the host validates every call's params in its own process, holding the GIL,
and jsonschema-rs cannot be interrupted; `host_validator` applies the metaschema and the
linear-time engine to schemas the host already trusts (hand-written catalog tools) and gives
the params budget every call is held to.

A leaf the gate may import (of dyntools it imports only the leaf `interrupts`), imported by
the host (dyntools.pipeline.toolmeta) too, so both compile schemas the same way; jsonschema-rs
itself (a 15 MB native module, ~25 ms to load) is imported the first time a schema is
compiled, so a file refused before its PARAMS and `dyntools --version` never load it.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Any

SchemaPath = tuple[str | int, ...]
INVALID, COST, NOT_OBJECT = "invalid", "cost", "not-object"


class SchemaError(ValueError):
    """A schema the host cannot compile (not a JSON Schema, or a pattern that would need a
    backtracking engine). `text` is jsonschema-rs's first line, `path` where in the schema."""

    def __init__(self, text: str, path: SchemaPath | None = None, regex: bool = False) -> None:
        super().__init__(text)
        self.text = text
        self.path = path
        self.regex = regex


class SchemaVerdict(NamedTuple):
    """The gate's verdict on a PARAMS schema: `problem` is None when it may be used; `kind`
    says which rule refused it (INVALID, COST or NOT_OBJECT) and `path` where (when known)."""

    problem: str | None
    kind: str | None = None
    path: SchemaPath | None = None
    validator: Any = None
    per_value_ns: int = 0


class SafeSchema(NamedTuple):
    """A compiled validator, and how many params units a call may bring (the budget)."""

    validator: Any
    per_value_ns: int
    budget_units: int


_ENGINE: list[Any] = []


def _engine() -> tuple[Any, Any]:
    """jsonschema_rs and its linear-time regex options, loaded on first use."""
    if not _ENGINE:
        from dyntools.base.interrupts import critical

        # jsonschema-rs's native init imports decimal and panics on any error there, a
        # KeyboardInterrupt included (a PanicException and a Rust backtrace, not an exit 130):
        # a signal is held while it loads (~5 ms) and raised after (nothing without the CLI's
        # handlers).
        with critical():
            import jsonschema_rs

        # PARAMS patterns run in the host on every call's params. fancy-regex (jsonschema-rs's
        # default) backtracks up to a million steps per string: '^(a|a?)+\\1$' under anyOf
        # cost 25 ms for each 36-byte string, ~700 s of stalled host (GIL held) per MB of
        # params.
        _ENGINE.extend((jsonschema_rs, jsonschema_rs.RegexOptions()))
    return _ENGINE[0], _ENGINE[1]


def _refuse_retrieval(uri: str) -> Any:
    raise ValueError(f"no schema documents are retrieved ({uri})")


def error_text(exc: Exception) -> str:
    """A jsonschema-rs error as one line: `at PATH: message`."""
    message = getattr(exc, "message", None) or str(exc).splitlines()[0]
    path = getattr(exc, "instance_path", None)
    where = "/".join(str(p) for p in path) if path else "(root)"
    return f"at {where}: {message}"


def compile_validator(schema: Any) -> Any:
    """Check `schema` (JSON data) against its metaschema and build its validator with the
    linear-time engine and no retrieval; raises SchemaError."""
    jsonschema_rs, linear_time = _engine()
    try:
        jsonschema_rs.meta.validate(schema)
        # The linear-time engine: a pattern that needs backtracking (backreferences,
        # lookaround) is refused here, so the host's validator never backtracks either.
        return jsonschema_rs.validator_for(schema, retriever=_refuse_retrieval,
                                           pattern_options=linear_time)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as exc:
        text = error_text(exc)
        path = getattr(exc, "instance_path", None)
        raise SchemaError(text, tuple(path) if isinstance(path, list) else None,
                          regex=text.endswith('is not a "regex"')) from None


class Invalid(NamedTuple):
    """Why an instance does not satisfy a schema: where (a JSON-pointer-like path, or
    "(root)") and jsonschema-rs's message; `data` False when the instance is not JSON data
    jsonschema-rs can represent at all."""

    where: str
    message: str
    data: bool = True

    def __str__(self) -> str:
        return f"at {self.where}: {self.message}"


def validation_error(validator: Any, instance: Any) -> Invalid | None:
    """Why `instance` does not satisfy `validator`'s schema, or None."""
    jsonschema_rs, _ = _engine()
    try:
        if validator.is_valid(instance):
            return None
        validator.validate(instance)
    except jsonschema_rs.ValidationError as exc:
        path = getattr(exc, "instance_path", None)
        where = "/".join(str(p) for p in path) if path else "(root)"
        return Invalid(where, getattr(exc, "message", None) or str(exc).splitlines()[0])
    except ValueError as exc:  # a value jsonschema-rs cannot represent
        return Invalid("(root)", str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                       data=False)
    return None


def canonical_json(schema: Any) -> str:
    """The schema as canonical JSON (the cache key); raises TypeError or ValueError."""
    return json.dumps(schema, sort_keys=True, allow_nan=False)


# Verdicts are cached for schemas up to this size only: a compiled validator costs up to
# ~20x its schema's text (each pattern is a compiled regex), and 1,024 cached 240 KB schemas
# held ~4.6 GiB in a long-running host (one service gating files from many authors); now
# at most ~40 MiB.
MAX_CACHED_SCHEMA_CHARS = 16384


def params_schema_verdict(schema: Any, *, surrogates: bool = True) -> SchemaVerdict:
    """The gate's PARAMS rules on `schema` (a literal's value), in the order a reader fixes
    them: JSON, Unicode text, a valid JSON Schema with local, finite references and bounded
    fan-out, a bounded validation cost, and "type": "object". `surrogates=False` says the
    caller already knows no string in it holds a lone surrogate."""
    if not isinstance(schema, dict):
        return SchemaVerdict("PARAMS must be a dict (a JSON Schema object)", INVALID)
    try:
        canonical = canonical_json(schema)
    except (TypeError, ValueError) as exc:
        return SchemaVerdict(f"PARAMS is not JSON: {exc}", INVALID)
    if surrogates and has_lone_surrogate(schema):
        return SchemaVerdict("PARAMS holds a lone surrogate escape (\\ud800-\\udfff), which "
                             "is not Unicode text", INVALID)
    if len(canonical) <= MAX_CACHED_SCHEMA_CHARS:
        return _verdict(canonical)
    return _verdict.__wrapped__(canonical)


def has_lone_surrogate(value: Any) -> bool:
    """True when a string in `value` cannot be written as UTF-8 ('\\ud800' in a literal)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except (TypeError, ValueError, RecursionError):
        return False  # not JSON: reported by the caller's own check
    return False


@lru_cache(maxsize=128)
def _verdict(canonical: str) -> SchemaVerdict:
    schema = json.loads(canonical)
    # Keys appear in canonical JSON as themselves: without the text no walk can find them.
    remote, where = (_remote_reference(schema) if any(f'"{key}"' in canonical for key in _REF_KEYS)
                     else (None, None))
    applied: dict[int, tuple[list[Any], Members]] = {}
    # A schema whose subschemas apply nothing to the same value (no references, no
    # allOf/anyOf/oneOf/not/if/then/else/dependentSchemas) is a tree: both bounds in one
    # pass. Anything else, or a tree too deep to recurse, takes the general walks.
    shared = any(f'"{key}"' in canonical for key in _SAME_VALUE_KEYS)
    tree = None if shared else _tree_bounds(schema)
    if remote is None:
        remote = _fan_out_problem(schema, applied) if tree is None else _fan_out_text(tree[0])
    if remote is not None:
        return SchemaVerdict(f"PARAMS {remote}", INVALID, where)
    try:
        validator = compile_validator(schema)
    except SchemaError as exc:
        text = exc.text
        if exc.regex:
            text += " (patterns must run in linear time: no backreferences or lookaround)"
        return SchemaVerdict(f"PARAMS is not a valid JSON Schema {text}", INVALID, exc.path)
    costly = _costly_keyword(schema) if '"multipleOf"' in canonical else None
    if costly is not None:
        return SchemaVerdict(costly[0], COST, costly[1])
    per_value = value_cost_ns(schema, applied) if tree is None else tree[1]
    if per_value > MAX_NS_PER_VALUE:
        return SchemaVerdict(
            f"validating one params value against PARAMS may cost about "
            f"{per_value / 1000:.0f} us (at most {MAX_NS_PER_VALUE // 1000} us): the host "
            "validates every call's params and cannot be interrupted; use fewer branches, "
            "enum entries that are floats/arrays/objects, required/dependentRequired names "
            "or multipleOf", COST)
    if schema.get("type") != "object":
        return SchemaVerdict('PARAMS must declare "type": "object"', NOT_OBJECT)
    return SchemaVerdict(None, validator=validator, per_value_ns=per_value)


def params_schema_problem(schema: Any) -> str | None:
    """Why `schema` could not be a tool's PARAMS under the gate's rules (a JSON Schema object
    of type object, linear-time patterns, no remote references, bounded fan-out and cost),
    or None. For schemas that arrive from callers (an MCP client's params_schema) and are
    compiled in the host."""
    return params_schema_verdict(schema).problem


@lru_cache(maxsize=512)
def _host_validator(canonical: str) -> SafeSchema:
    schema = json.loads(canonical)
    per_value = value_cost_ns(schema)
    return SafeSchema(compile_validator(schema), per_value, validation_budget_units(per_value))


def host_validator(schema: Any) -> SafeSchema:
    """The compiled validator for a schema the host validates params against (cached by the
    schema's canonical JSON); raises SchemaError (TypeError/ValueError: not JSON)."""
    return _host_validator(canonical_json(schema))


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


def _fan_out_problem(schema: Any, applied: dict[int, tuple[list[Any], Members]] | None = None
                     ) -> str | None:
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

    applied = {} if applied is None else applied
    stack: list[tuple[Any, bool]] = [(schema, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        found = applied.get(key)
        if found is None:
            found = applied[key] = _applied_subschemas(schema, node)
        if found is _LEAF:  # what the general step below computes for a leaf
            if key not in here:
                here[key] = min(cap, 1 + _slow_enum_entries(node))
                below[key] = (0, 0)
            continue
        same, members = found
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
    return _fan_out_text(worst(schema))


def _fan_out_text(count: int) -> str | None:
    if count > MAX_SUBSCHEMAS_PER_VALUE:
        return (f"lets more than {MAX_SUBSCHEMAS_PER_VALUE} subschemas apply to one params value "
                "(allOf/anyOf/oneOf branches, patternProperties, references, enum entries that "
                "are floats, arrays or objects): validating large params against it would stall "
                "the host")
    return None


def _tree_bounds(schema: Any) -> tuple[int, int] | None:
    """(the fan-out bound, the cost bound per value) of a schema in which no subschema
    applies another to the same value: what _fan_out_problem and value_cost_ns compute for
    it (tests/gate/test_fast_paths.py holds them equal), in one recursive pass. None when it
    nests too deep to recurse (the iterative walks then decide)."""
    unique = [False]
    try:
        fan, cost = _bounds(schema, schema, unique)
    except RecursionError:
        return None
    return fan, min(_COST_CAP, cost + (NS_UNIQUE_ITEMS if unique[0] else 0))


# A function of the module, not a closure: a closure that calls itself is a reference cycle
# (function -> cell -> function) left for the collector after every schema.
def _bounds(schema: Any, node: Any, unique: list[bool]) -> tuple[int, int]:
    """The worst (fan-out, cost) of the subschemas applied to any one value under `node`
    (`unique[0]` becomes True when some subschema says uniqueItems)."""
    if not isinstance(node, dict):  # a boolean schema
        return 1, 0
    if not unique[0] and node.get("uniqueItems") is True:
        unique[0] = True
    fan_cap, cost_cap = _FAN_CAP, _COST_CAP
    fan_here = min(fan_cap, 1 + _slow_enum_entries(node))
    cost_here = min(cost_cap, _own_cost(node, 0))
    found = _applied_subschemas(schema, node)
    if found is _LEAF:
        return fan_here, cost_here
    fan_worst, cost_worst = fan_here, cost_here
    for pick_one, all_of in found[1]:
        fan_one = cost_one = fan_all = cost_all = 0
        for child in pick_one:
            fan, cost = _bounds(schema, child, unique)
            fan_one, cost_one = max(fan_one, fan), max(cost_one, cost)
        for child in all_of:
            fan, cost = _bounds(schema, child, unique)
            fan_all, cost_all = fan_all + fan, cost_all + cost
        fan_worst = max(fan_worst, min(fan_cap, fan_one + fan_all))
        cost_worst = max(cost_worst, min(cost_cap, cost_one + cost_all))
    return fan_worst, cost_worst


def _slow_enum_entries(node: Any) -> int:
    """Enum entries jsonschema-rs compares one by one at ~1 us each (floats, arrays, objects):
    each counts as a subschema. Strings, integers, booleans and null are looked up at once."""
    if not isinstance(node, dict) or not isinstance(node.get("enum"), list):
        return 0
    return sum(1 for entry in node["enum"]
               if isinstance(entry, float | list | dict))


if TYPE_CHECKING:  # the subschemas a node applies: (objects: one, all), (arrays: one, all)
    Members = tuple[tuple[list[Any], list[Any]], tuple[list[Any], list[Any]]]


# What validating params costs the host, per params value, in nanoseconds: an upper-bound
# model measured on jsonschema-rs (bench/validation.py prints the measured worst cases next
# to the estimates). The host validates in its own process holding the GIL, and jsonschema-rs
# cannot be interrupted, so every call's params are refused when `units x cost` exceeds
# VALIDATION_BUDGET_NS (dyntools.pipeline.toolmeta). Units: every value, plus every character of a
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
# Counting a params value's units before validation (dyntools.base.paramsize) costs up to this.
NS_WALK_PER_UNIT = 40


def validation_budget_units(per_value_ns: int) -> int:
    """How many params units (values and characters) may be validated within the budget
    against a schema whose values cost up to `per_value_ns` each."""
    return VALIDATION_BUDGET_NS // (max(0, per_value_ns) + NS_WALK_PER_UNIT)
# Refused at the gate: a schema for which one value may cost more than this.
MAX_NS_PER_VALUE = 100_000
# _bounds' caps: one past the fan-out limit, and far above any cost the gate accepts.
_FAN_CAP = MAX_SUBSCHEMAS_PER_VALUE + 1
_COST_CAP = MAX_NS_PER_VALUE * 1000
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


def value_cost_ns(schema: Any, applied: dict[int, tuple[list[Any], Members]] | None = None
                  ) -> int:
    """An upper bound, in ns, on what validating one params value (a number, a string
    character, an object or array node) against `schema` costs: the heaviest set of
    subschemas that may apply to one value, weighted by their keywords. References must be
    acyclic (the gate's rules); a recursive schema gets MAX_NS_PER_VALUE * 1000."""
    here: dict[int, int] = {}
    below: dict[int, tuple[int, int]] = {}
    applied = {} if applied is None else applied  # shareable with _fan_out_problem
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
        found = applied.get(key)
        if found is None:
            found = applied[key] = _applied_subschemas(schema, node)
        if not unique and isinstance(node, dict) and node.get("uniqueItems") is True:
            unique = True
        if found is _LEAF:  # what the general step below computes for a leaf
            if key not in here:
                here[key] = min(cap, _own_cost(node, 0))
                below[key] = (0, 0)
            continue
        same, members = found
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


# The keywords through which a subschema applies others to the same value.
_SAME_VALUE_KEYS = (*_SAME_VALUE_LISTS, *_SAME_VALUE_ONE, *_SAME_VALUE_MAPS, *_REF_KEYS)
# The keywords through which a subschema applies others (see _applied_subschemas).
_APPLIER_KEYS = frozenset((*_SAME_VALUE_LISTS, *_SAME_VALUE_ONE, *_SAME_VALUE_MAPS, *_REF_KEYS,
                           "properties", "patternProperties", *_OBJECT_MEMBERS, "items",
                           "prefixItems", *_ARRAY_ITEMS))
# What a subschema without them applies: nothing (shared, never changed).
_LEAF: tuple[list[Any], Members] = ([], (([], []), ([], [])))


def _applied_subschemas(schema: Any, node: Any) -> tuple[list[Any], Members]:
    """The subschemas a subschema applies to the same value, and to an object's members and
    an array's items (each as: at most one of these, all of these)."""
    if not isinstance(node, dict) or node.keys().isdisjoint(_APPLIER_KEYS):
        return _LEAF  # most subschemas ({"type": "string", "maxLength": 64}) apply nothing
    same: list[Any] = []
    obj_one: list[Any] = []
    obj_all: list[Any] = []
    arr_one: list[Any] = []
    arr_all: list[Any] = []
    members: Members = ((obj_one, obj_all), (arr_one, arr_all))

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


