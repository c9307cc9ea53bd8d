"""Issue 9, finding 4: no call holds the host long in params validation, whatever the schema.

`{"type": "number", "multipleOf": 5e-324}` in an array and one 3.6 MB call held the host's
GIL 7-8 s in jsonschema-rs (which cannot be interrupted). Now the gate refuses costly keywords
and schemas (DT514, at the literal), and the host refuses params whose estimated validation
cost passes the budget before validation starts. bench/validation.py measures the worst
cases the bound lets through."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dyntools.base.paramsize import MAX_PARAMS_DEPTH, params_units
from dyntools.errors import InvalidParams, UsageError
from dyntools.gate import check_source
from dyntools.gate.contract import (
    MAX_NS_PER_VALUE,
    params_schema_problem,
    validation_budget_units,
    value_cost_ns,
)
from dyntools.pipeline.toolmeta import check_params, params_check
from dyntools.sandbox.limits import SandboxLimits
from tests.support.validations import count_validations

FINDING = {"type": "object",
           "properties": {"a": {"type": "array",
                                "items": {"type": "number", "multipleOf": 5e-324}}}}


def tool(params: str, examples: str = "[]") -> str:
    return (f'NAME = "sample_tool"\nDESCRIPTION = "d"\nPARAMS = {params}\n'
            f"EXAMPLES = {examples}\n\n\ndef run(params):\n    return {{}}\n")


def test_the_finding_schema_is_refused_at_its_multiple_of() -> None:
    source = tool('{"type": "object", "properties": {"a": {"type": "array",\n'
                  '    "items": {"type": "number", "multipleOf": 5e-324}}}}')
    report = check_source(source)
    assert [f.code for f in report.findings] == ["DT514"], report.findings
    finding = report.findings[0]
    assert finding.line == 4
    assert source.splitlines()[3][finding.col - 1:] == "5e-324}}}}"
    assert "multipleOf 5e-324 is outside" in finding.message


@pytest.mark.parametrize(("multiple", "accepted"), [
    (0.01, True), (1e-9, True), (7, True), (2 ** 53, True),
    (1e-10, False), (5e-324, False), (2 ** 60, False), (1e300, False)])
def test_multiple_of_bounds(multiple: float, accepted: bool) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "number", "multipleOf": multiple}}}
    assert (params_schema_problem(schema) is None) is accepted


def test_a_schema_that_costs_too_much_per_value_is_refused() -> None:
    names = {f"k{i}": ["x", "y"] for i in range(2_000)}
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {
        "type": "object", "dependentRequired": names}}}}
    assert value_cost_ns(schema) > MAX_NS_PER_VALUE
    problem = params_schema_problem(schema)
    assert problem is not None and "may cost about" in problem
    assert "DT514" in check_source(tool(json.dumps(schema))).codes


def test_an_example_too_large_to_validate_is_refused() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {
        "allOf": [{"minimum": i} for i in range(60)]}}}}
    budget = validation_budget_units(value_cost_ns(schema))
    small = json.dumps([{"params": {"a": [100] * 10}, "result": {}}])
    large = json.dumps([{"params": {"a": [100] * budget}, "result": {}}])
    assert check_source(tool(json.dumps(schema), small)).accepted
    report = check_source(tool(json.dumps(schema), large))
    assert [f.code for f in report.findings] == ["DT514"], report.findings
    assert "too large to validate" in report.findings[0].message


def test_the_finding_call_is_refused_before_validation_not_after_seconds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The validator (jsonschema-rs, holding the GIL: 7-8 s on these params before) never
    starts on them: counted, not timed (bench/ measures speed)."""
    # The host path also serves schemas the gate never saw (hand-written catalog tools).
    validations = count_validations(monkeypatch)
    check = params_check(FINDING, "sample_tool")
    params = {"a": [1e-300] * 450_000}  # ~3.6 MB of JSON
    assert len(json.dumps(params)) > 3_500_000
    with pytest.raises(InvalidParams, match="too large to validate"):
        check(params)
    assert validations == []
    check({"a": [1e-300] * 10})  # small params are still validated
    assert len(validations) == 1
    with pytest.raises(InvalidParams, match="do not match"):
        check({"a": ["x"]})


def test_plain_schemas_take_params_of_hundreds_of_kilobytes() -> None:
    schema = {"type": "object", "properties": {"text": {"type": "string"},
                                               "values": {"type": "array",
                                                          "items": {"type": "number"}}}}
    check_params(schema, {"text": "x" * 300_000, "values": [1.5] * 100_000})


def test_budget_units_never_exceed_the_params_cap() -> None:
    # Units are at most the JSON bytes, so the bound never refuses what the cap allows for
    # schemas that cost up to ~the walk itself... and is the only limit for costlier ones.
    assert validation_budget_units(0) <= 2 * SandboxLimits().max_params_bytes


def test_deep_params_through_the_api_are_invalid_params_not_recursion() -> None:
    deep: list[object] = []
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(InvalidParams, match=f"deeper than {MAX_PARAMS_DEPTH}"):
        check_params({"type": "object"}, {"a": deep})


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=20),
                    lambda children: st.lists(children, max_size=5)
                    | st.dictionaries(st.text(max_size=5), children, max_size=5),
                    max_leaves=40))
def test_units_never_exceed_the_json_bytes(value: object) -> None:
    units = params_units(value, 1 << 40)
    assert 1 <= units <= len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    assert params_units(value, units - 1) > units - 1  # the early exit says "over"


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["multipleOf", "anyOf", "items", "required", "uniqueItems", "enum",
                       "dependentRequired", "unevaluatedProperties", "$ref", "#", "#/$defs/a"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(
        ["type", "multipleOf", "anyOf", "allOf", "items", "properties", "required",
         "uniqueItems", "enum", "dependentRequired", "unevaluatedProperties", "$ref", "$defs",
         "a", "not", "if", "then", "prefixItems", "contains"]), children, max_size=4),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(JSONISH)
def test_the_cost_model_never_raises(schema: object) -> None:
    assert value_cost_ns(schema) >= 0
    params_schema_problem(schema)  # a problem or None, never an exception


def test_huge_integer_multiple_of_is_a_finding_not_a_crash() -> None:
    schema = {"type": "object", "properties": {"x": {"multipleOf": 10 ** 400}}}
    assert value_cost_ns(schema) > 0
    report = check_source(tool(json.dumps(schema)))
    assert "DT902" not in report.codes and not report.accepted


def test_a_backtracking_pattern_in_a_hand_written_schema_is_refused() -> None:
    schema = {"type": "object", "properties": {"text": {"type": "string",
                                                        "pattern": "^(a|a?)+(?=b)"}}}
    with pytest.raises(UsageError, match="linear time"):
        params_check(schema, "hand_written")
    params_check({"type": "object", "properties": {"text": {"pattern": "^(a|b)+$"}}})
