"""Verification as a value: exact JSON comparison, example origins, and what stops a run."""

from __future__ import annotations

from typing import Any

import pytest

from dyntools.errors import SandboxTimeout, ToolRuntimeError, UsageError
from dyntools.pipeline.verify import (
    CALLER,
    CONTRACT,
    TOOL,
    Example,
    collect_examples,
    run_examples,
)


def answer(result: dict[str, Any]) -> Any:
    return lambda params: result


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ({"n": 1}, {"n": 1.0}),  # JSON keeps 1 and 1.0 apart
        ({"n": 1}, {"n": True}),
        ({"xs": [1, 2]}, {"xs": [2, 1]}),
        ({"s": "a"}, {"s": "a", "extra": None}),
        ({"n": None}, {}),
    ],
)
def test_results_must_match_exactly_as_json(expected: dict[str, Any],
                                            actual: dict[str, Any]) -> None:
    report = run_examples(answer(actual), collect_examples([{"params": {}, "result": expected}]),
                          tool="t")
    assert not report.passed
    [failure] = report.failures
    assert failure.actual == actual and failure.status == "failed"


def test_key_order_does_not_matter() -> None:
    examples = collect_examples([{"params": {}, "result": {"a": 1, "b": 2}}])
    assert run_examples(answer({"b": 2, "a": 1}), examples, tool="t").passed


def test_origins_are_kept_and_duplicates_run_once() -> None:
    same = {"params": {"x": 1}, "result": {"y": 1}}
    other = {"params": {"x": 2}, "result": {"y": 2}}
    examples = collect_examples(own=[same], caller=[same, other], contract=[other, same])
    assert [(e.params["x"], e.origin) for e in examples] == [(1, TOOL), (2, CALLER)]
    contract_only = collect_examples(contract=[same])
    assert contract_only[0].origin == CONTRACT


@pytest.mark.parametrize(
    "bad",
    [
        {"params": {}},
        {"params": {}, "result": {}, "extra": 1},
        {"params": [], "result": {}},
        {"params": {}, "result": "x"},
        {"params": {"x": float("nan")}, "result": {}},
        "not a dict",
    ],
)
def test_malformed_examples_are_usage_errors(bad: Any) -> None:
    with pytest.raises(UsageError):
        collect_examples(caller=[bad])


def test_a_runtime_error_is_a_failed_example_and_the_run_goes_on() -> None:
    calls: list[dict[str, Any]] = []

    def call(params: dict[str, Any]) -> dict[str, Any]:
        calls.append(params)
        if params["x"] == 1:
            raise ToolRuntimeError("ZeroDivisionError: division by zero")
        return {"y": params["x"]}

    examples = collect_examples([{"params": {"x": 1}, "result": {"y": 1}},
                                 {"params": {"x": 2}, "result": {"y": 2}}])
    report = run_examples(call, examples, tool="t")
    assert [o.status for o in report.outcomes] == ["error", "passed"]
    assert report.failures[0].error["reason"] == "runtime_error"
    assert "division by zero" in report.summary()
    assert report.passed_examples == [{"params": {"x": 2}, "result": {"y": 2}}]


def test_an_error_that_costs_a_worker_stops_the_run() -> None:
    def call(params: dict[str, Any]) -> dict[str, Any]:
        raise SandboxTimeout("killed")

    examples = collect_examples([{"params": {"x": n}, "result": {}} for n in range(3)])
    report = run_examples(call, examples, tool="t")
    assert [o.status for o in report.outcomes] == ["error", "not_run", "not_run"]
    assert report.counts() == {"passed": 0, "failed": 0, "error": 1, "not_run": 2}


def test_the_summary_names_the_failing_example_with_expected_and_actual() -> None:
    examples = (Example({"text": "Hello"}, {"slug": "hello"}, CALLER),)
    report = run_examples(answer({"slug": "HELLO"}), examples, tool="slugify_text")
    assert report.summary() == (
        'example 1 (caller) with params {"text": "Hello"}: expected {"slug": "hello"}, '
        'got {"slug": "HELLO"}'
    )
    assert report.as_dict()["examples"][0]["expected"] == {"slug": "hello"}


def test_no_examples_pass_vacuously_and_say_so() -> None:
    report = run_examples(answer({}), (), tool="t")
    assert report.passed and report.summary() == "no examples to run"


def test_examples_past_the_budget_fail_verification() -> None:
    from dyntools.pipeline.verify import Example, run_examples

    examples = [Example({"n": i}, {"n": i}, "tool") for i in range(3)]
    report = run_examples(dict, examples, tool="t", budget_s=0.0)
    assert not report.passed
    assert report.outcomes[0].error["reason"] == "verification_timeout"
    assert [o.status for o in report.outcomes[1:]] == ["not_run", "not_run"]
