"""What someone who can write the registry folder, but holds no trusted key, can do to a
decision chain, and how each is refused (dyntools/registry/chain.py names them all).

One registry with two chained tools is built through the CLI once; each attack edits a copy
of it, as an attacker would edit the files, and `call` and `review` (real processes, trusted
keys on) must refuse it with the reason and a message that says what is wrong."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dyntools.registry import chain
from dyntools.registry.signing import load_signing_key

from .chain_scenes import (
    Operator,
    chain_of,
    copy_registry,
    edit_manifest,
    keygen,
    manifest,
    refused,
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Operator:
    """slugify_text: #0 ensure v1, #1 ensure v2, #2 activate v1, #3 activate v2, #4 retire
    v1 (current v2); word_count: #0 ensure v1. Every command names its own state folder."""
    op = Operator(tmp_path_factory.mktemp("chain-base"))
    op.ok("init", str(op.reg))
    op.ok("ensure", "slugify_text", key=True)
    op.ok("ensure", "slugify_text", "--new-version", key=True)
    op.ok("activate", "slugify_text", "1", key=True)
    op.ok("activate", "slugify_text", "2", key=True)
    op.ok("retire", "slugify_text", "1", "--reason", "leaks its input", key=True)
    op.ok("ensure", "word_count", key=True)
    assert [r["action"] for r in manifest(op.reg, "slugify_text")["chain"]] == [
        "ensure", "ensure", "activate", "activate", "retire"]
    return op


@pytest.fixture
def attacked(base: Operator, tmp_path: Path) -> Operator:
    """A copy of the base registry at a new path (so a fresh consumer state), same keys."""
    op = Operator(tmp_path, keys=base)
    copy_registry(base.reg, op.reg)
    return op


def _signed_by(key: Path, fields: dict[str, Any]) -> dict[str, Any]:
    """A record signed with `key` over exactly `fields` (what chain.new_record would refuse
    to write, an unknown action included)."""
    import base64

    signer = load_signing_key(key)
    record = {**fields, "key": signer.public_key}
    record["signature"] = base64.b64encode(signer.private_key.sign(chain.payload(record))).decode()
    return record


def _next_record(data: dict[str, Any], key: Path, **changes: Any) -> dict[str, Any]:
    head = data["chain"][-1]
    fields = {k: v for k, v in head.items() if k not in ("key", "signature")}
    fields.update({"seq": head["seq"] + 1, "prev": chain.digest_of(head),
                   "action": "activate", "by": "mallory", "reason": None, **changes})
    return _signed_by(key, fields)


def _mallory(tmp: Path) -> Path:
    key = tmp / "mallory.key"
    return key if key.exists() else keygen(key)


Attack = Callable[[dict[str, Any], Operator], None]


def edited_field(data: dict[str, Any], op: Operator) -> None:
    data["chain"][4]["by"] = "mallory"


def edited_statuses(data: dict[str, Any], op: Operator) -> None:
    data["chain"][4]["statuses"]["1"] = "approved"
    data["chain"][4]["current"] = 1
    data["current"] = 1
    data["versions"][0]["status"], data["versions"][0]["reason"] = "approved", None


def own_key(data: dict[str, Any], op: Operator) -> None:
    data["chain"].append(_next_record(data, _mallory(op.tmp)))


def key_swapped(data: dict[str, Any], op: Operator) -> None:
    record = _next_record(data, _mallory(op.tmp))
    record["key"] = data["chain"][-1]["key"]  # alice's, under mallory's signature
    data["chain"].append(record)


def reordered(data: dict[str, Any], op: Operator) -> None:
    data["chain"][2], data["chain"][3] = data["chain"][3], data["chain"][2]


def inserted(data: dict[str, Any], op: Operator) -> None:
    data["chain"].insert(2, data["chain"][1])


def replayed_same_tool(data: dict[str, Any], op: Operator) -> None:
    data["chain"].append(data["chain"][2])  # "activate v1", signed by alice, once
    data["current"] = 1


def replayed_other_tool(data: dict[str, Any], op: Operator) -> None:
    data["chain"][0] = manifest(op.reg, "word_count")["chain"][0]


def spliced(data: dict[str, Any], op: Operator) -> None:
    data["chain"][3]["prev"] = "0" * 64


def unknown_action(data: dict[str, Any], op: Operator) -> None:
    data["chain"].append(_next_record(data, op.key, action="promote"))  # a newer dyntools


def oversized_field(data: dict[str, Any], op: Operator) -> None:
    data["chain"][4]["reason"] = "x" * 100_000


def not_an_object(data: dict[str, Any], op: Operator) -> None:
    data["chain"][4] = ["retire", 1]


ATTACKS: dict[str, tuple[Attack, str]] = {
    "edit a field": (edited_field, "record #4 does not verify: its signature does not hold"),
    "edit the state a record says": (edited_statuses, "record #4 does not verify"),
    "sign with a key of one's own": (own_key, "signed by a key that is not trusted"),
    "swap the key of a record": (key_swapped, "record #5 does not verify: its signature"),
    "reorder records": (reordered, "record #2 does not verify: it says it is #3"),
    "insert a record": (inserted, "record #2 does not verify: it says it is #1"),
    "replay a record of the same tool": (replayed_same_tool, "it says it is #2, but it is #5"),
    "replay another tool's record": (replayed_other_tool, "belongs to tool 'word_count'"),
    "splice a link": (spliced, "record #3 does not verify: its prev is not the hash"),
    "an action this dyntools does not know": (unknown_action, "'promote' is not one this "
                                                              "dyntools knows"),
    "an oversized field": (oversized_field, "reason must be text of at most"),
}


@pytest.mark.parametrize("seen", [False, True], ids=["new consumer", "consumer with state"])
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_tampered_chain_is_refused(attacked: Operator, attack: str, seen: bool) -> None:
    change, expected = ATTACKS[attack]
    if seen:  # this consumer accepted head #4: it re-verifies only what follows it
        assert json.loads(attacked.call().stdout)["version"] == 2
    edit_manifest(attacked.reg, "slugify_text", lambda data: change(data, attacked))
    message = refused(attacked.call(), "chain_mismatch")
    assert expected in message, message
    code, review = attacked.review()
    assert code == 1
    verdict = chain_of(review, "slugify_text")
    assert verdict["code"] == "chain_mismatch" and expected in verdict["problem"]
    assert verdict["head"] is None
    assert chain_of(review, "word_count")["code"] is None  # the other tool is served
    # and no decision builds on it
    decision = attacked.dt("activate", "slugify_text", "2", key=True)
    assert decision.returncode == 16 and "nothing was decided" in decision.stderr


def test_a_chain_the_manifest_parser_refuses_makes_the_whole_tool_untrusted(
        attacked: Operator) -> None:
    edit_manifest(attacked.reg, "slugify_text", lambda data: not_an_object(data, attacked))
    assert "chain must be a list of objects" in refused(attacked.call(), "version_unusable")
    code, review = attacked.review()
    assert code == 1
    assert "chain must be a list of objects" in next(
        t["error"] for t in review["tools"] if t["name"] == "slugify_text")


def test_a_removed_chain_is_no_chain_or_older_than_what_was_accepted(
        attacked: Operator, tmp_path: Path) -> None:
    attacked.call()  # this consumer accepts head #4
    edit_manifest(attacked.reg, "slugify_text", lambda data: data.pop("chain"))
    assert "the chain was removed" in refused(attacked.call(), "chain_mismatch")
    # a consumer that never saw it: no signed decision vouches for the pointer
    message = refused(attacked.call(state=tmp_path / "other-state"), "no_chain")
    assert "dyntools sign-state slugify_text" in message


def test_a_dropped_tail_is_refused_by_a_consumer_that_accepted_it(attacked: Operator,
                                                                   tmp_path: Path) -> None:
    assert json.loads(attacked.call().stdout)["version"] == 2  # accepts #4

    def drop(data: dict[str, Any]) -> None:
        dropped = data["chain"].pop()  # the retire of v1
        assert dropped["action"] == "retire"
        data["versions"][0].update(status="approved", reason=None)

    edit_manifest(attacked.reg, "slugify_text", drop)
    message = refused(attacked.call(), "chain_mismatch")
    assert "the chain's head is #3, but this consumer accepted #4" in message
    # the documented limit: a consumer with no state sees a valid, consistent chain
    assert json.loads(attacked.call(state=tmp_path / "no-state").stdout)["version"] == 2


def test_a_fork_signed_by_a_trusted_key_is_refused_by_a_consumer_that_accepted_the_other(
        base: Operator, tmp_path: Path) -> None:
    a = Operator(tmp_path, "a", keys=base)
    b = Operator(tmp_path, "b", keys=base)
    copy_registry(base.reg, a.reg)
    copy_registry(base.reg, b.reg)
    a.ok("retire", "word_count", "1", "--reason", "replaced", key=True)  # a's #1
    b.ok("activate", "word_count", "1", "--reason", "staging", key=True)  # b's #1
    assert a.dt("call", "word_count", "--params", '{"text": "a b"}').returncode == 16
    shutil.copy(b.reg / "word_count" / "manifest.json", a.reg / "word_count" / "manifest.json")
    done = a.dt("call", "word_count", "--params", '{"text": "a b"}', "--json")
    message = refused(done, "chain_mismatch")
    assert "record #1 is not the one this consumer accepted" in message and "fork" in message
