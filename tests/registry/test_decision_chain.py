"""Issue 26, item 3, through the real CLI: signatures now cover which version is served and
every retirement (a signed, chained decision record each), and a consumer that remembers the
head it accepted refuses an older copy of the registry.

One test per finding of the red team: (a) the pointer moved back to a superseded signed
version, (b) a retired version's signed entry restored from an older manifest, (c) a whole
older registry restored; then decisions without a usable key, `sign-state`, and registries
without trusted keys, which behave as before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from .chain_scenes import Operator, chain_of, copy_registry, edit_manifest, manifest, refused


@pytest.fixture(scope="module")
def signed_twice(tmp_path_factory: pytest.TempPathFactory) -> Operator:
    """slugify_text v1 then v2 (current), each made current by a signed `ensure`: made once
    for the module (two ensures, each a generation, a gate run and a verification)."""
    op = Operator(tmp_path_factory.mktemp("two-signed"))
    op.ok("init", str(op.reg))
    op.ok("ensure", "slugify_text", key=True)
    op.ok("ensure", "slugify_text", "--new-version", key=True)
    assert manifest(op.reg, "slugify_text")["current"] == 2
    return op


@pytest.fixture
def two_versions(signed_twice: Operator, tmp_path: Path) -> Operator:
    """A copy of that registry at a new path, same keys, and a consumer that has seen
    nothing of it yet."""
    op = Operator(tmp_path, keys=signed_twice)
    copy_registry(signed_twice.reg, op.reg)
    return op


# ------------------------------------------------------------------------- the findings


def test_a_pointer_moved_back_to_a_superseded_signed_version_is_refused(
        two_versions: Operator) -> None:
    op = two_versions
    assert json.loads(op.call().stdout)["version"] == 2
    # v1 is a signed, approved version: only the pointer changes, by someone with no key
    edit_manifest(op.reg, "slugify_text", lambda m: m.update(current=1))
    message = refused(op.call(), "chain_mismatch")
    assert "pointer is v1" in message and "says v2" in message
    plain = op.dt("call", "slugify_text", "--params", '{"text": "A b"}')
    assert plain.returncode == 16 and "chain_mismatch" in plain.stderr
    assert "Traceback" not in plain.stderr
    review = op.dt("review")
    assert review.returncode == 1
    assert "slugify_text" in review.stdout and "CHAIN_MISMATCH" in review.stdout
    assert "pointer is v1" in review.stdout
    # Without trusted keys nothing can be verified: the registry behaves as it always did.
    assert json.loads(op.call(trusted=False).stdout)["version"] == 1
    # A signed decision settles it, and the pointer it restores is the chain's.
    op.ok("activate", "slugify_text", "2", key=True)
    assert json.loads(op.call().stdout)["version"] == 2
    assert op.dt("review").returncode == 0


def test_a_retired_version_restored_from_an_older_manifest_is_refused(
        two_versions: Operator) -> None:
    op = two_versions
    older = manifest(op.reg, "slugify_text")  # a backup, the Git history
    op.ok("retire", "slugify_text", "1", "--reason", "leaks its input", key=True)
    retired = manifest(op.reg, "slugify_text")
    assert retired["versions"][0]["status"] == "retired"

    def restore(data: dict[str, Any]) -> None:
        data["versions"][0] = older["versions"][0]  # approved, with its valid signature
        data["current"] = 1

    edit_manifest(op.reg, "slugify_text", restore)
    message = refused(op.call(), "chain_mismatch")
    assert "pointer is v1" in message
    code, review = op.review()
    assert code == 1
    chain = chain_of(review, "slugify_text")
    assert chain["code"] == "chain_mismatch"
    assert any("v1 is approved in the manifest, but the chain says retired" in d
               for d in chain["disagreements"])
    text = op.dt("review").stdout
    assert "v1 is approved in the manifest, but the chain says retired" in text
    # The chain decides what a decision may do: v1 cannot be made current again by a key
    # holder who trusts the manifest's word for it.
    again = op.dt("activate", "slugify_text", "1", key=True)
    assert again.returncode == 16 and "does not approve it" in again.stderr
    assert manifest(op.reg, "slugify_text")["current"] == 1  # nothing was written
    # Settling it: a signed decision restores the chain's pointer, a retire its status.
    op.ok("activate", "slugify_text", "2", key=True)
    assert json.loads(op.call().stdout)["version"] == 2
    code, review = op.review()
    assert code == 1 and chain_of(review, "slugify_text")["code"] is None  # served, still
    op.ok("retire", "slugify_text", "1", "--reason", "restored by an attacker", key=True)
    assert op.review()[0] == 0


def test_an_older_registry_snapshot_is_refused_by_a_consumer_that_has_state(
        tmp_path: Path) -> None:
    op = Operator(tmp_path)
    op.ok("init", str(op.reg))
    op.ok("ensure", "slugify_text", key=True)
    backup = copy_registry(op.reg, tmp_path / "backup")  # consistent, signed, older
    op.ok("ensure", "slugify_text", "--new-version", key=True)
    op.ok("retire", "slugify_text", "1", "--reason", "superseded", key=True)
    assert json.loads(op.call().stdout)["version"] == 2  # this consumer accepts head #2
    shutil.rmtree(op.reg)
    copy_registry(backup, op.reg)
    message = refused(op.call(), "chain_mismatch")
    assert "older copy" in message and "accepted #2" in message
    code, review = op.review()
    assert code == 1
    assert "older copy" in chain_of(review, "slugify_text")["problem"]
    assert "remove slugify_text from" in chain_of(review, "slugify_text")["hint"]
    # What remains (docs/registry.md): a consumer with no state cannot tell a consistent
    # older snapshot from today's; it serves the old v1.
    fresh = tmp_path / "fresh-state"
    assert json.loads(op.call(state=fresh).stdout)["version"] == 1
    # Nor can the operator build on it: the writer is a consumer with state too.
    refused_decision = op.dt("activate", "slugify_text", "1", key=True)
    assert refused_decision.returncode == 16 and "older copy" in refused_decision.stderr


# ----------------------------------------------------------- decisions need a usable key


def test_with_trusted_keys_a_decision_without_a_usable_key_is_refused_and_changes_nothing(
        tmp_path: Path) -> None:
    op = Operator(tmp_path)
    stranger = tmp_path / "mallory.key"
    from .chain_scenes import keygen

    keygen(stranger)
    op.ok("init", str(op.reg), "--approval", "always")
    assert op.dt("ensure", "slugify_text").returncode == 17  # pending: not a decision
    folder = op.reg / "slugify_text"

    def unchanged(*args: str) -> None:
        before = (folder / "manifest.json").read_bytes()
        for key in (False, stranger):
            done = op.dt(*args, key=key)
            assert done.returncode == 14, (args, key, done.stdout, done.stderr)
            said = ("not one of the trusted keys" if key else "--sign-key FILE")
            assert said in done.stderr, done.stderr
            assert "Traceback" not in done.stderr
            assert (folder / "manifest.json").read_bytes() == before, args

    unchanged("approve", "slugify_text", "1")
    unchanged("reject", "slugify_text", "1", "--reason", "no")
    op.ok("approve", "slugify_text", "1", key=True)
    op.ok("init", str(op.reg), "--approval", "never")
    unchanged("ensure", "slugify_text", "--new-version")
    op.ok("ensure", "slugify_text", "--new-version", key=True)
    unchanged("activate", "slugify_text", "1")
    unchanged("rollback", "slugify_text", "1")
    unchanged("retire", "slugify_text", "2", "--reason", "no")
    unchanged("sign-state", "slugify_text")
    # the key's own record: who, the action, the versions, the pointer, each status
    head = manifest(op.reg, "slugify_text")["chain"][-1]
    assert (head["action"], head["versions"], head["current"]) == ("ensure", [2], 2)
    assert head["statuses"] == {"1": "approved", "2": "approved"}
    assert head["key"] == Path(f"{op.key}.pub").read_text().split()[1]
    assert len(manifest(op.reg, "slugify_text")["chain"]) == 2  # approve, ensure


def test_every_decision_appends_one_signed_linked_record(two_versions: Operator) -> None:
    op = two_versions
    op.ok("rollback", "slugify_text", "1", "--reason", "v2 slow", key=True)
    op.ok("activate", "slugify_text", "2", key=True)
    op.ok("retire", "slugify_text", "1", "--reason", "superseded", key=True)
    chain = manifest(op.reg, "slugify_text")["chain"]
    assert [(r["seq"], r["action"], r["versions"], r["current"]) for r in chain] == [
        (0, "ensure", [1], 1), (1, "ensure", [2], 2), (2, "rollback", [1], 1),
        (3, "activate", [2], 2), (4, "retire", [1], 2)]
    assert chain[2]["reason"] == "v2 slow"
    assert chain[0]["prev"] is None
    assert all(r["prev"] is not None for r in chain[1:])
    assert len({r["prev"] for r in chain}) == len(chain)
    assert chain[-1]["statuses"] == {"1": "retired", "2": "approved"}
    code, review = op.review()
    assert code == 0
    head = chain_of(review, "slugify_text")["head"]
    assert (head["seq"], head["action"]) == (4, "retire")
    assert "decision chain: 5 signed record(s), head #4 retire" in op.dt("review").stdout


# ------------------------------------------------------------------------- sign-state


def test_sign_state_starts_the_chain_of_a_registry_made_before_chains(tmp_path: Path) -> None:
    op = Operator(tmp_path)
    op.ok("init", str(op.reg))
    op.ok("ensure", "slugify_text", trusted=False)  # no key: no chain
    op.ok("ensure", "slugify_text", "--new-version", trusted=False)
    op.ok("activate", "slugify_text", "1", "--sign-key", str(op.key), trusted=False)
    # a stricter status set without a key leaves what is served as the chain says it
    op.ok("retire", "slugify_text", "2", "--reason", "slow", trusted=False)
    assert json.loads(op.call().stdout)["version"] == 1
    # a keyless pointer move leaves the chain behind: not served with trusted keys
    op.ok("ensure", "slugify_text", "--new-version", trusted=False)  # v3, current, unsigned
    refused(op.call(), "chain_mismatch")
    stale = op.dt("sign-state", "slugify_text", key=True)
    assert stale.returncode == 16 and "--accept-manifest" in stale.stderr
    signed = op.ok("sign-state", "slugify_text", "--accept-manifest", key=True)
    assert "signed #1" in signed.stdout and "over the chain" in signed.stdout
    assert "pointer is v3" in signed.stdout
    # v3 itself was approved without a signature: still quarantined as unsigned
    assert "unsigned" in refused(op.call(), "version_unusable")
    op.ok("activate", "slugify_text", "3", key=True)  # signs the version record too
    assert json.loads(op.call().stdout)["version"] == 3
    again = op.ok("sign-state", key=True)
    assert "already signed" in again.stdout
    assert len(manifest(op.reg, "slugify_text")["chain"]) == 3  # activate, sign-state, activate

    # A tool that never had a chain: not served until sign-state, and review says so.
    op.ok("ensure", "word_count", trusted=False)
    plain = op.dt("call", "word_count", "--params", '{"text": "a b"}')
    assert plain.returncode == 16 and "no_chain" in plain.stderr
    assert "dyntools sign-state word_count" in plain.stderr
    review = op.dt("review")
    assert review.returncode == 1
    assert "NO_CHAIN" in review.stdout and "dyntools sign-state word_count" in review.stdout
    op.ok("sign-state", "word_count", key=True)
    # the chain now vouches for the pointer; the version's own record is still unsigned
    unsigned = op.dt("call", "word_count", "--params", '{"text": "a b"}')
    assert unsigned.returncode == 16 and "v1 is quarantined (unsigned" in unsigned.stderr
    op.ok("activate", "word_count", "1", key=True)
    assert op.dt("call", "word_count", "--params", '{"text": "a b"}').returncode == 0
    assert op.dt("review").returncode == 0


def test_without_trusted_keys_registries_behave_as_before_and_keys_still_chain(
        tmp_path: Path) -> None:
    op = Operator(tmp_path)
    op.ok("init", str(op.reg))
    op.ok("ensure", "slugify_text", trusted=False)
    assert "chain" not in manifest(op.reg, "slugify_text")  # nothing signed: nothing chained
    op.ok("ensure", "slugify_text", "--new-version", trusted=False, key=True)
    op.ok("rollback", "slugify_text", "1", trusted=False)
    chain = manifest(op.reg, "slugify_text")["chain"]
    assert [r["action"] for r in chain] == ["ensure"]  # a keyless decision adds nothing
    assert json.loads(op.call(trusted=False).stdout)["version"] == 1
    assert op.dt("review", trusted=False).returncode == 0
    assert not op.state.exists()  # nothing verified, nothing recorded
    op.ok("activate", "slugify_text", "2", trusted=False, key=True)
    chain = manifest(op.reg, "slugify_text")["chain"]
    assert [(r["action"], r["current"]) for r in chain] == [("ensure", 2), ("activate", 2)]
    assert json.loads(op.call().stdout)["version"] == 2  # and with trusted keys: served
