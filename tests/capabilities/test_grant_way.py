"""A grant's way from the operator's TOML to the broker's request: the environment variable is
named in one place, "no policy" is one value with one wording wherever a request meets it,
the policy is held by the CapabilityHost (a call's HostCalls and its broker session read it
there), and a call's requests, HTTP and composed tools alike, are counted once."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest

import dyntools
from dyntools.capabilities.hostcalls import CapabilityHost
from dyntools.capabilities.policy import (
    CAPABILITIES_ENV,
    EMPTY_POLICY,
    NO_POLICY,
    policy_from_mapping,
    resolve_capability_policy,
)
from dyntools.errors import CapabilityViolation
from dyntools.gate.capabilities import parse_capabilities

PACKAGE = Path(dyntools.__file__).parent
FRAME = {"op": "http", "method": "GET", "url": "http://127.0.0.1:9/", "params": None,
         "headers": None}


def test_the_environment_variable_is_named_in_one_module() -> None:
    # Help texts and docstrings may say the name; code that reads it uses CAPABILITIES_ENV.
    named = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)}
        named += [f"{path.relative_to(PACKAGE)}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and node.value == CAPABILITIES_ENV
                  and id(node) not in docstrings]
    assert [place.partition(":")[0] for place in named] == ["capabilities/policy.py"], named


def test_no_policy_is_one_value_whatever_the_way_in(tmp_path: Path) -> None:
    assert resolve_capability_policy(None, environ={}) is EMPTY_POLICY
    assert resolve_capability_policy("", environ={CAPABILITIES_ENV: ""}) is EMPTY_POLICY
    assert resolve_capability_policy(EMPTY_POLICY) is EMPTY_POLICY
    assert CapabilityHost().policy is EMPTY_POLICY
    given = policy_from_mapping({"tools": {"allow": ["helper"]}})
    assert resolve_capability_policy(given, environ={CAPABILITIES_ENV: "/nowhere"}) is given


def test_no_policy_says_the_same_wherever_a_request_meets_it() -> None:
    declared = parse_capabilities({"http": ["127.0.0.1:9"], "secrets": ["TOKEN"],
                                   "tools": ["helper"]})
    reasons = {grant.reason for grant in EMPTY_POLICY.grants(declared)}
    live = CapabilityHost().live(tool="fetcher", version=1, declared=declared,
                                 tools=lambda *a: {"x": 1})
    deadline = time.monotonic() + 60
    refusals = []
    for frame in (FRAME, {"op": "call_tool", "name": "helper", "params": {}}):
        with pytest.raises(CapabilityViolation) as info:
            live(frame, deadline)
        refusals.append(info.value)
    from dyntools.capabilities.broker import HttpBroker

    with HttpBroker(EMPTY_POLICY) as broker:
        session = broker.session(tool="fetcher", version=1, declared=declared,
                                 deadline=deadline)
        with pytest.raises(CapabilityViolation) as info:
            session.request({k: v for k, v in FRAME.items() if k != "op"})
        refusals.append(info.value)
    assert reasons == {NO_POLICY}
    assert [r.message for r in refusals] == [NO_POLICY] * 3
    assert [r.details["code"] for r in refusals] == ["http.no_policy"] * 3
    assert [r.details["capability"] for r in refusals] == ["http", "tools", "http"]
    assert CAPABILITIES_ENV in NO_POLICY and "--capabilities FILE" in NO_POLICY


def test_a_call_reads_the_policy_its_host_holds() -> None:
    policy = policy_from_mapping({"http": {"allow": ["127.0.0.1:9"],
                                           "allow_private": ["127.0.0.1/32"],
                                           "max_requests_per_call": 3}})
    capabilities = CapabilityHost(policy)
    declared = parse_capabilities({"http": ["127.0.0.1:9"]})
    call = capabilities.live(tool="fetcher", version=1, declared=declared,
                             tools=lambda *a: {})
    assert call.policy is policy and call.budget.limit == 3
    try:
        broker = capabilities.broker()
        assert broker.policy is policy
        session = broker.session(tool="fetcher", version=1, declared=declared,
                                 deadline=time.monotonic() + 5, budget=call.budget)
        assert session._policy is policy and session.budget is call.budget
    finally:
        capabilities.close()
