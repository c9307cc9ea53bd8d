"""A tool's declared metadata, read from its source without running it, and params checking.

    meta = report.metadata              # what the gate read (dyntools.gate.findings.GateReport)
    meta = read_metadata(source)        # the same from bytes alone (parses the file)
    check_params(meta.params, params)   # raises InvalidParams naming the first violation

The constants are literals (the gate proves it), so `ast` is enough to read them: nothing in
the host ever imports or executes a generated file. A gated file's report already carries
them (`GateReport.metadata`); `read_metadata` is for callers that hold only the bytes.
Hand-written catalog tools are checked against their schema with the same `check_params`, so
both kinds refuse bad params alike. Schemas are compiled by dyntools.base.jsonschema_safe, the one
JSON Schema module the gate and the host share.
"""

from __future__ import annotations

import ast
import contextlib
import json
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from dyntools.base.jsonschema_safe import SafeSchema, SchemaError, host_validator, validation_error
from dyntools.base.paramsize import (
    MAX_PARAMS_DEPTH,
    TooDeep,
    json_value_problem,
    params_units,
)
from dyntools.errors import InvalidParams, UsageError
from dyntools.gate.capabilities import NONE, DeclarationError, parse_capabilities
from dyntools.gate.literals import NotLiteral, literal_value
from dyntools.gate.metadata import ToolMetadata

__all__ = ["CATALOG", "EMPTY_PARAMS", "MAX_PARAMS_DEPTH", "REGISTRY", "Tool", "ToolMetadata",
           "check_params", "nesting_depth_exceeds", "params_check", "params_validator",
           "parse_json_text", "read_metadata"]

EMPTY_PARAMS: Mapping[str, Any] = {"type": "object", "properties": {}}
_READ = ("NAME", "DESCRIPTION", "PARAMS", "EXAMPLES", "CAPABILITIES")


def read_metadata(source: str | bytes) -> ToolMetadata:
    """The top-level NAME, DESCRIPTION, PARAMS, EXAMPLES and CAPABILITIES of a gated tool
    file (prefer the gate report's `metadata`, which costs no second parse)."""
    text = source.decode("utf-8") if isinstance(source, bytes) else source
    values: dict[str, Any] = {}
    for node in ast.parse(text).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in _READ
        ):
            try:
                values[node.targets[0].id] = literal_value(node.value)
            except NotLiteral:
                continue
    name = values.get("NAME")
    description = values.get("DESCRIPTION")
    params = values.get("PARAMS")
    examples = values.get("EXAMPLES")
    capabilities = NONE
    if "CAPABILITIES" in values:
        # The gate refuses a malformed one; an ungated file declares nothing usable.
        with contextlib.suppress(DeclarationError):
            capabilities = parse_capabilities(values["CAPABILITIES"])
    return ToolMetadata(
        name=name if isinstance(name, str) else None,
        description=description if isinstance(description, str) else "",
        params=params if isinstance(params, dict) else dict(EMPTY_PARAMS),
        examples=tuple(e for e in examples if isinstance(e, dict))
        if isinstance(examples, list)
        else (),
        capabilities=capabilities,
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


def _not_json_constant(name: str) -> Any:
    """json.loads accepts NaN, Infinity and -Infinity, which JSON does not have."""
    raise ValueError(f"{name} is not a JSON value")


def parse_json_text(text: str | bytes, what: str) -> Any:
    """JSON text from a caller (a CLI option, a file) as data, or UsageError naming `what`:
    invalid JSON, or nesting deeper than MAX_PARAMS_DEPTH, never a RecursionError."""
    try:
        value = json.loads(text, parse_constant=_not_json_constant)
    except RecursionError:
        raise UsageError(f"{what} nests deeper than {MAX_PARAMS_DEPTH} levels") from None
    except ValueError as exc:
        raise UsageError(f"{what} is not valid JSON: {exc}") from None
    if nesting_depth_exceeds(value):
        raise UsageError(f"{what} nests deeper than {MAX_PARAMS_DEPTH} levels")
    not_json = json_value_problem(value)  # 1e999: a float out of range, read as infinity
    if not_json is not None:
        raise UsageError(f"{what} is not JSON data: {not_json}")
    return value


def params_validator(schema: Mapping[str, Any]) -> Any:
    """A compiled validator for `schema` (cached by the schema's canonical JSON)."""
    return _compiled(schema)[0]


def _compiled(schema: Mapping[str, Any]) -> tuple[Any, int]:
    """The compiled validator for a schema, and how many params units a call may bring
    within VALIDATION_BUDGET_NS (dyntools.base.jsonschema_safe's cost model)."""
    try:
        safe: SafeSchema = host_validator(schema)
    except RecursionError as exc:  # deep nesting
        raise UsageError(f"the params schema is not JSON: {exc}") from None
    except SchemaError as exc:
        text = exc.text
        if exc.regex:
            # Linear-time patterns only, as at the gate: a pattern that needs backtracking
            # (lookaround, backreferences) can take fancy-regex up to its backtrack limit on
            # each string, ~25 ms, in the host, holding the GIL; hand-written schemas too.
            text += (" (patterns must run in linear time: no backreferences or lookaround; "
                     "the host validates every call's params and cannot interrupt a "
                     "backtracking match)")
        raise UsageError(f"not a valid JSON Schema: {text}") from None
    except (TypeError, ValueError) as exc:
        raise UsageError(f"the params schema is not JSON: {exc}") from None
    return safe.validator, safe.budget_units


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
    # The units bound the walk; the tool sees JSON data only, as a JSON caller sends it.
    not_json = json_value_problem(params)
    if not_json is not None:
        raise InvalidParams(f"params for {tool or 'the tool'}: {not_json}", tool=tool)
    problem = validation_error(validator, params)
    if problem is None:
        return
    if not problem.data:
        raise InvalidParams(f"params are not JSON data: {problem.message}", tool=tool)
    first = problem.message.splitlines()[0] if problem.message else "invalid"
    raise InvalidParams(
        f"params for {tool or 'the tool'} do not match its schema at {problem.where}: {first}",
        tool=tool,
        path=problem.where,
    )


CATALOG, REGISTRY = "catalog", "registry"
ALIAS = "alias"  # a search hit for a name that serves another tool (Registry.alias_of)


class Tool(NamedTuple):
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
        return {**self._asdict(), "params": dict(self.params)}
