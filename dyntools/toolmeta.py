"""A tool's declared metadata, read from its source without running it, and params checking.

    meta = read_metadata(source)        # NAME, DESCRIPTION, PARAMS, EXAMPLES as plain data
    check_params(meta.params, params)   # raises InvalidParams naming the first violation

The constants are literals (the gate proves it), so `ast` is enough to read them: nothing in
the host ever imports or executes a generated file. Hand-written catalog tools are checked
against their schema with the same `check_params`, so both kinds refuse bad params alike.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jsonschema_rs

from dyntools.errors import InvalidParams, UsageError
from dyntools.gate.literals import NotLiteral, literal_value
from dyntools.paramsize import MAX_PARAMS_DEPTH, TooDeep, params_units

EMPTY_PARAMS: Mapping[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True, slots=True)
class ToolMetadata:
    name: str | None
    description: str
    params: dict[str, Any]
    examples: tuple[dict[str, Any], ...] = field(default=())


def read_metadata(source: str | bytes) -> ToolMetadata:
    """The top-level NAME, DESCRIPTION, PARAMS and EXAMPLES of a gated tool file."""
    text = source.decode("utf-8") if isinstance(source, bytes) else source
    values: dict[str, Any] = {}
    for node in ast.parse(text).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in ("NAME", "DESCRIPTION", "PARAMS", "EXAMPLES")
        ):
            try:
                values[node.targets[0].id] = literal_value(node.value)
            except NotLiteral:
                continue
    name = values.get("NAME")
    description = values.get("DESCRIPTION")
    params = values.get("PARAMS")
    examples = values.get("EXAMPLES")
    return ToolMetadata(
        name=name if isinstance(name, str) else None,
        description=description if isinstance(description, str) else "",
        params=params if isinstance(params, dict) else dict(EMPTY_PARAMS),
        examples=tuple(e for e in examples if isinstance(e, dict))
        if isinstance(examples, list)
        else (),
    )


# No call holds the host longer than this in params validation (estimates are held to half).
VALIDATION_LIMIT_MS = 100


def nesting_depth_exceeds(value: Any, limit: int = MAX_PARAMS_DEPTH) -> bool:
    """True when lists/dicts in `value` nest deeper than `limit` (walked without recursion)."""
    try:
        params_units(value, 1 << 62, limit)
    except TooDeep:
        return True
    return False


def parse_json_text(text: str | bytes, what: str) -> Any:
    """JSON text from a caller (a CLI option, a file) as data, or UsageError naming `what`:
    invalid JSON, or nesting deeper than MAX_PARAMS_DEPTH, never a RecursionError."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise UsageError(f"{what} nests deeper than {MAX_PARAMS_DEPTH} levels") from None
    except ValueError as exc:
        raise UsageError(f"{what} is not valid JSON: {exc}") from None
    if nesting_depth_exceeds(value):
        raise UsageError(f"{what} nests deeper than {MAX_PARAMS_DEPTH} levels")
    return value


def _refuse_retrieval(uri: str) -> Any:
    raise ValueError(f"no schema documents are retrieved ({uri})")


@lru_cache(maxsize=512)
def _validator(canonical: str) -> tuple[Any, int]:
    """The compiled validator for a schema, and how many params units it may validate within
    VALIDATION_BUDGET_NS (dyntools.gate.contract's cost model)."""
    from dyntools.gate.contract import (
        LINEAR_TIME_PATTERNS,
        validation_budget_units,
        value_cost_ns,
    )

    schema = json.loads(canonical)
    try:
        jsonschema_rs.meta.validate(schema)
        # Linear-time patterns only, as at the gate: a pattern that needs backtracking
        # (lookaround, backreferences) can take fancy-regex up to its backtrack limit on
        # each string, ~25 ms, in the host, holding the GIL; hand-written schemas too.
        validator = jsonschema_rs.validator_for(schema, retriever=_refuse_retrieval,
                                                pattern_options=LINEAR_TIME_PATTERNS)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as exc:
        text = _first_line(exc)
        if text.endswith('is not a "regex"'):
            text += (" (patterns must run in linear time: no backreferences or lookaround; "
                     "the host validates every call's params and cannot interrupt a "
                     "backtracking match)")
        raise UsageError(f"not a valid JSON Schema: {text}") from None
    return validator, validation_budget_units(value_cost_ns(schema))


def params_validator(schema: Mapping[str, Any]) -> Any:
    """A compiled validator for `schema` (cached by the schema's canonical JSON)."""
    return _compiled(schema)[0]


def _compiled(schema: Mapping[str, Any]) -> tuple[Any, int]:
    try:
        canonical = json.dumps(schema, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:  # RecursionError: deep nesting
        raise UsageError(f"the params schema is not JSON: {exc}") from None
    return _validator(canonical)


def check_params(schema: Mapping[str, Any], params: Any, *, tool: str | None = None) -> None:
    """Raise InvalidParams unless `params` is a dict that satisfies `schema`."""
    params_check(schema, tool)(params)


def params_check(schema: Mapping[str, Any], tool: str | None = None) -> Callable[[Any], None]:
    """`check_params` for one schema, compiled once (calls on a hot path keep this)."""
    validator, budget_units = _compiled(schema)
    return lambda params: _check(validator, budget_units, params, tool)


def _check(validator: Any, budget_units: int, params: Any, tool: str | None) -> None:
    if not isinstance(params, dict):
        raise InvalidParams(
            f"params must be a JSON object, got {type(params).__name__}", tool=tool
        )
    # jsonschema-rs holds the GIL and cannot be interrupted: params too large for this
    # schema's per-value cost are refused before it starts, so no call holds the host
    # longer than the budget (100 ms) in validation, whatever the schema and the params.
    try:
        units = params_units(params, budget_units)
    except TooDeep as exc:
        raise InvalidParams(f"params for {tool or 'the tool'}: {exc}", tool=tool) from None
    if units > budget_units:
        raise InvalidParams(
            f"params for {tool or 'the tool'} are too large to validate against its schema "
            f"within {VALIDATION_LIMIT_MS} ms: more than {budget_units} values and characters "
            "for this schema; send smaller params",
            tool=tool,
        )
    if validator.is_valid(params):
        return
    try:
        validator.validate(params)
    except jsonschema_rs.ValidationError as exc:
        where = "/".join(str(p) for p in exc.instance_path) or "(root)"
        raise InvalidParams(
            f"params for {tool or 'the tool'} do not match its schema at {where}: "
            f"{_first_line(exc)}",
            tool=tool,
            path=where,
        ) from None
    except ValueError as exc:  # e.g. a value jsonschema-rs cannot represent
        raise InvalidParams(f"params are not JSON data: {exc}", tool=tool) from None


def _first_line(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return message.splitlines()[0] if message else type(exc).__name__


CATALOG, REGISTRY = "catalog", "registry"


@dataclass(frozen=True, slots=True)
class Tool:
    """What a caller sees of any tool, hand-written or generated: the same shape for both.

    `origin` ("catalog" or "registry") and `version` are there for operators and logs; the
    way a tool is described and called does not depend on them.
    """

    name: str
    description: str
    params: Mapping[str, Any]
    origin: str
    version: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "params": dict(self.params),
            "origin": self.origin,
            "version": self.version,
        }
