"""`report_failure` (issue 32) through `dyntools serve-mcp` as a real process, driven by the mcp
SDK's client over stdio: a failing call reported by an agent ends as a verified new version
that waits for a reviewer (or, with the operator's `--allow-unreviewed-repairs`, is served),
or as an error result that says why not; nothing is done by hand."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from dyntools.registry import Registry

SLUG = '''"""Turns a title into a URL slug."""
import re

NAME = "slug"
DESCRIPTION = "Turns a title into a URL slug."
PARAMS = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EXAMPLES = [{"params": {"text": "Hello World"}, "result": {"slug": "hello-world"}}]


def run(params):
    return {"slug": re.sub(r"[^a-z0-9]+", "-", params["text"].lower())}
'''
FIXED = SLUG.replace('.lower())}', '.lower()).strip("-")}')
# keeps underscores, and asks for the network on the way
WIDE = FIXED.replace("[^a-z0-9]", "[^a-z0-9_]").replace(
    "PARAMS =", 'CAPABILITIES = {"http": ["example.com"]}\nPARAMS =')


def params(registry: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[
        "-m", "dyntools", "serve-mcp", "--registry", str(registry), "--generators",
        "offline,file", "--no-watch", *extra])


def body(result: types.CallToolResult) -> dict[str, Any]:
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    value: dict[str, Any] = json.loads(text.text)
    return value


def report(registry: Path, *extra: str, arguments: list[dict[str, Any]]) -> list[Any]:
    answers: list[Any] = []

    async def scenario() -> None:
        async with Client(params(registry, *extra), mode="legacy",
                          read_timeout_seconds=60) as client:
            for argument in arguments:
                if "call" in argument:
                    answers.append(await client.call_tool("call_tool", argument["call"]))
                else:
                    answers.append(await client.call_tool("report_failure", argument))

    anyio.run(scenario)
    return answers


def test_a_reported_failure_ends_as_a_verified_version_waiting_for_a_reviewer(
        tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    Registry.open(registry).add_version("slug", SLUG, {"generator": "file"})
    wrong, repaired, again, flood = report(registry, arguments=[
        {"name": "slug", "params": {"text": "Hi!"}, "expected": {"slug": "hi"},
         "reason": "a trailing dash", "generator": "file", "source": SLUG},
        {"name": "slug", "params": {"text": "Hi!"}, "expected": {"slug": "hi"},
         "reason": "a trailing dash", "source": FIXED},
        {"call": {"name": "slug", "params": {"text": "Hi!"}}},
        {"name": "slug", "params": {"text": "Hi!"}, "expected": {"slug": "hi"},
         "reason": "\x1b[2Jagain", "source": FIXED},
    ])
    assert wrong.is_error is True  # the same code again: a clear reason why not
    error = body(wrong)["error"]
    assert error["reason"] == "verification_failed"
    assert error["details"]["attempts"][0]["findings"][0]["code"] == "DR101"
    assert repaired.is_error is False
    made = body(repaired)
    assert (made["status"], made["version"], made["repaired"]) == ("pending", 2, 1)
    assert made["approve_command"] == "dyntools approve slug 2"
    assert made["held"] == "repair_review"
    assert made["counterexample"] == {"params": {"text": "Hi!"}, "result": {"slug": "hi"}}
    assert body(again) == {"slug": "hi-"}  # not served until a reviewer approves it
    record = Registry.open(registry).get("slug", 2)
    assert record.provenance["repair"]["requested_by"] == "mcp"
    # the same report again is refused before any generation: one pending repair is enough
    assert flood.is_error is True and body(flood)["error"]["reason"] == "repairs_pending"
    assert [r.version for r in Registry.open(registry).versions("slug")] == [1, 2]


def test_the_operator_can_let_repairs_follow_the_approval_policy(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    Registry.open(registry).add_version("slug", SLUG, {"generator": "file"})
    repaired, called, refused, widened = report(
        registry, "--allow-unreviewed-repairs", arguments=[
            {"name": "slug", "params": {"text": "Hi!"}, "expected": {"slug": "hi"},
             "source": FIXED},
            {"call": {"name": "slug", "params": {"text": "Hi!"}}},
            {"name": "slug", "params": {"text": "Hello World"}, "expected": {"slug": "other"},
             "source": FIXED},
            {"name": "slug", "params": {"text": "a_b"}, "expected": {"slug": "a_b"},
             "source": WIDE},
        ])
    assert body(repaired)["status"] == "approved"
    assert body(called) == {"slug": "hi"}
    assert refused.is_error is True
    assert body(refused)["error"]["reason"] == "contract_contradiction"
    assert "contradicts the contract" in body(refused)["error"]["message"]
    # a repair that reaches more than the version it repairs waits, whatever the flag says
    assert (body(widened)["status"], body(widened)["held"]) == ("pending",
                                                               "capabilities_widened")
    assert Registry.open(registry).current("slug").version == 2  # type: ignore[union-attr]


def test_report_failure_checks_its_arguments(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    Registry.open(registry).add_version("slug", SLUG, {"generator": "file"})
    answers = report(registry, arguments=[
        {"name": "slug", "params": {"text": "Hi!"}},  # no expected
        {"name": "report_failure", "params": {}, "expected": {}},
        {"name": "nothing_here", "params": {}, "expected": {"x": 1}},
        {"name": "slug", "params": {"text": "Hi!"}, "expected": {"slug": "hi"},
         "generator": "offline", "source": FIXED},
    ])
    assert all(answer.is_error for answer in answers)
    reasons = [body(answer)["error"]["reason"] for answer in answers]
    assert reasons == ["invalid_params", "usage_error", "unknown_tool", "usage_error"]


def test_with_trusted_keys_a_served_repair_is_a_signed_contract_decision(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """serve-mcp --allow-unreviewed-repairs --sign-key under trusted keys: the repair is
    current and the counterexample joins the chain as a signed `contract` record (without a
    key it is refused before any generation: tests/pipeline/test_repair.py)."""
    from dyntools.generators.offline import template_source
    from dyntools.registry.signing import load_signing_key, load_trusted_keys
    from tests.registry.chain_scenes import Operator, env_without_dyntools

    from .test_mcp_server import ok

    op = Operator(tmp_path)
    monkeypatch.setenv("DYNTOOLS_TRUST_STATE", str(op.state))
    Registry.open(op.reg, trusted_keys=load_trusted_keys(op.trusted)).add_version(
        "slugify_text", template_source("slugify_text"), {"generator": "offline"},
        signer=load_signing_key(op.key))
    fixed = template_source("slugify_text").replace("[^a-z0-9]+", "[^a-z0-9_]+")
    report_args = {"name": "slugify_text", "params": {"text": "a_b"},
                   "expected": {"slug": "a_b"}, "source": fixed}

    def server() -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "dyntools", "serve-mcp", "--registry", str(op.reg), "--trusted-keys",
                  str(op.trusted), "--generators", "offline,file", "--no-watch",
                  "--allow-unreviewed-repairs", "--sign-key", str(op.key)],
            env=env_without_dyntools(DYNTOOLS_TRUST_STATE=str(op.state)))

    async def reported(params: StdioServerParameters) -> Any:
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            return await client.call_tool("report_failure", report_args)

    made = ok(anyio.run(reported, server()))
    assert (made["status"], made["version"]) == ("approved", 2), made
    head = json.loads((op.reg / "slugify_text" / "manifest.json").read_text())["chain"][-1]
    assert (head["action"], head["current"], len(head["contract"])) == ("contract", 2, 1)
