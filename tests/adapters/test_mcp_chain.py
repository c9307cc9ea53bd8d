"""`dyntools serve-mcp` with trusted keys verifies decision chains where the registry decides
what to serve: a pointer moved by hand while the server runs takes the tool off the list, and
a call to it is an error result with reason chain_mismatch (a real server over stdio)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from tests.registry.chain_scenes import Operator, edit_manifest
from tests.support.environment import env_without_dyntools

from .test_mcp_server import ListChanges, error, names, ok


def test_serve_mcp_refuses_a_tool_whose_chain_does_not_vouch_for_it(tmp_path: Path) -> None:
    op = Operator(tmp_path)
    op.ok("init", str(op.reg))
    op.ok("ensure", "slugify_text", key=True)
    op.ok("ensure", "slugify_text", "--new-version", key=True)
    # The SDK's stdio client passes only a few variables on: the state folder goes explicitly.
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "dyntools", "serve-mcp", "--registry", str(op.reg), "--trusted-keys",
              str(op.trusted), "--generators", "offline"],
        env=env_without_dyntools(DYNTOOLS_TRUST_STATE=str(op.state)))
    changes = ListChanges()

    async def scenario() -> None:
        async with Client(params, mode="legacy", message_handler=changes.handler,
                          read_timeout_seconds=30) as client:
            assert "slugify_text" in await names(client)
            assert ok(await client.call_tool("slugify_text", {"text": "A b"})) == {
                "slug": "a-b"}
            seen = changes.count
            edit_manifest(op.reg, "slugify_text", lambda m: m.update(current=1))
            await changes.after(seen)
            assert "slugify_text" not in await names(client)
            refused = error(await client.call_tool("slugify_text", {"text": "A b"}))
            assert (refused["station"], refused["reason"]) == ("registry", "chain_mismatch")
            assert "pointer is v1" in refused["message"]
            via_meta = error(await client.call_tool("call_tool", {
                "name": "slugify_text", "params": {"text": "A b"}}))
            assert via_meta["reason"] == "chain_mismatch"

    anyio.run(scenario)
    assert changes.faults == []
    assert list(op.state.glob("*.json"))  # the server recorded the head it accepted


def test_serve_mcp_grows_a_tool_into_its_chain_only_with_a_signing_key(tmp_path: Path) -> None:
    """ensure_tool's activation is a decision: with trusted keys and no key it is refused
    (nothing written); with --sign-key it joins the chain, and a verifying consumer serves
    the tool."""
    op = Operator(tmp_path)
    op.ok("init", str(op.reg))

    def server(*extra: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "dyntools", "serve-mcp", "--registry", str(op.reg), "--trusted-keys",
                  str(op.trusted), "--generators", "offline", *extra],
            env=env_without_dyntools(DYNTOOLS_TRUST_STATE=str(op.state)))

    async def grow(params: StdioServerParameters) -> object:
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            return await client.call_tool("ensure_tool", {"name": "slugify_text"})

    refused = error(anyio.run(grow, server()))
    assert refused["reason"] == "signing_key_required", refused
    assert not (op.reg / "slugify_text").exists(), list((op.reg / "slugify_text").iterdir())
    made = ok(anyio.run(grow, server("--sign-key", str(op.key))))
    assert made["version"] == 1, made
    chain = json.loads((op.reg / "slugify_text" / "manifest.json").read_text())["chain"]
    assert chain and chain[-1]["current"] == 1
    assert json.loads(op.call().stdout)["result"] == {"slug": "a-b"}
