"""Issue 28: `ensure --reuse-similar` makes the asked-for name callable, as a recorded alias to
the tool that serves it: listed, searchable, removable (`dyntools unalias`), and with trusted
keys a signed `alias` record of the name's decision chain, so an alias edited on disk is
refused. An alias has no versions of its own and is never a tool of its own (not in
`Dyntools.tools()`, not a near-duplicate for `Catalog.similar`). Through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dyntools.catalog.core import Catalog
from dyntools.generators.base import ToolSpec
from dyntools.pipeline.dyntools import Dyntools
from dyntools.registry import chain
from dyntools.registry.core import Registry
from dyntools.registry.signing import generate_keypair, load_signing_key
from tests.registry.test_review_workflow import dt

DESCRIPTION = "Counts the words of a text."


def _reg(tmp_path: Path) -> tuple[Path, list[str]]:
    reg = tmp_path / "reg"
    done = dt("ensure", "word_count", "--registry", str(reg))
    assert done.returncode == 0, done.stderr
    return reg, ["--registry", str(reg)]


def _reuse(where: list[str], *extra: str) -> object:
    return dt("ensure", "count_words", "--description", DESCRIPTION, "--reuse-similar",
              *where, *extra)


def test_reuse_similar_says_plainly_when_it_served_nothing(tmp_path: Path) -> None:
    _, where = _reg(tmp_path)
    bare = dt("ensure", "count_words", "--reuse-similar", *where)  # no description to compare
    assert bare.returncode == 15, bare.stderr  # then generated: the offline generator has none
    assert ("similar: not looked for: --reuse-similar compares descriptions and none was given"
            in bare.stderr)
    other = dt("ensure", "reverse_list", "--reuse-similar", "--description",
               "Reverses the order of a list.", *where)
    assert other.returncode == 15, other.stderr
    assert "similar: no current tool does this job" in other.stderr
    assert "generating reverse_list" in other.stderr
    listed = json.loads(dt("list", "--json", *where).stdout)["tools"]
    assert [t["name"] for t in listed] == ["word_count"]  # no alias was made
    found = _reuse(where)
    assert found.returncode == 0 and "no current tool does this job" not in found.stderr


def test_reuse_similar_makes_the_asked_for_name_callable(tmp_path: Path) -> None:
    reg, where = _reg(tmp_path)
    done = _reuse(where, "--params", '{"text": "a b"}')
    assert done.returncode == 0, done.stderr
    assert "count_words is now an alias of word_count" in done.stdout
    assert "dyntools unalias count_words" in done.stdout
    assert json.loads(done.stdout.splitlines()[-1])["words"] == 2
    called = dt("call", "count_words", "--params", '{"text": "one two three"}', *where)
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["words"] == 3
    listed = json.loads(dt("list", "--json", *where).stdout)["tools"]
    assert [(t["name"], t["alias_of"], t["versions"]) for t in listed] == [
        ("count_words", "word_count", 0), ("word_count", None, 1)]
    found = json.loads(dt("search", "count words", "--json", *where).stdout)["hits"]
    assert {(h["name"], h["origin"]) for h in found} >= {("count_words", "alias"),
                                                        ("word_count", "registry")}
    again = dt("ensure", "count_words", "--json", *where)
    assert again.returncode == 0 and json.loads(again.stdout)["alias_of"] == "word_count"
    shown = dt("show", "count_words", *where)
    assert shown.stdout.startswith("# count_words is an alias of word_count")
    assert dt("review", *where).returncode == 0

    removed = dt("unalias", "count_words", *where)
    assert removed.returncode == 0, removed.stderr
    assert "no longer an alias of word_count" in removed.stdout
    assert removed.stderr == ""
    gone = dt("call", "count_words", "--params", '{"text": "a"}', *where)
    assert gone.returncode == 2 and "unknown tool 'count_words'" in gone.stderr
    assert not (reg / "count_words").exists()
    assert dt("call", "word_count", "--params", '{"text": "a"}', *where).returncode == 0


def test_an_alias_is_never_a_tool_of_its_own(tmp_path: Path) -> None:
    reg, where = _reg(tmp_path)
    assert _reuse(where).returncode == 0
    with Dyntools(reg) as pipeline:
        assert [tool.name for tool in pipeline.tools()] == ["word_count"]
        assert pipeline.registry.aliases() == {"count_words": "word_count"}
        assert pipeline.tool("count_words") == pipeline.tool("word_count")
        assert pipeline.call("count_words", {"text": "a b c"})["words"] == 3
        catalog = Catalog(pipeline, generate=False)
        similar = catalog.similar(ToolSpec("words_counted", DESCRIPTION))
        assert [hit.name for hit in similar] == ["word_count"]  # not the alias again
        assert catalog.call("count_words", {"text": "x"})["words"] == 1


def test_what_an_alias_refuses(tmp_path: Path) -> None:
    reg, where = _reg(tmp_path)
    assert dt("ensure", "slugify_text", *where).returncode == 0
    has_versions = dt("alias", "slugify_text", "word_count", *where)
    assert has_versions.returncode == 2 and "versions of its own" in has_versions.stderr
    unserved = dt("alias", "count_words", "no_such_tool", *where)
    assert unserved.returncode == 2 and "serves no version" in unserved.stderr
    itself = dt("alias", "word_count", "word_count", *where)
    assert itself.returncode == 2
    assert dt("alias", "count_words", "word_count", *where).returncode == 0
    # an alias of an alias names the tool itself
    assert dt("alias", "tally_words", "count_words", *where).returncode == 0
    assert json.loads((reg / "tally_words" / "manifest.json").read_text())["alias"] == \
        "word_count"
    newer = dt("ensure", "count_words", "--new-version", *where)
    assert newer.returncode == 2 and "dyntools unalias count_words" in newer.stderr
    source = tmp_path / "count_words.py"
    shown = json.loads(dt("show", "word_count", "--json", *where).stdout)
    source.write_text(shown["source"].replace("word_count", "count_words"))
    added = dt("approve", "count_words", "--file", str(source), *where)
    assert added.returncode == 2 and "is an alias of word_count" in added.stderr
    not_one = dt("unalias", "word_count", *where)
    assert not_one.returncode == 2 and "not an alias" in not_one.stderr


def test_with_trusted_keys_an_alias_is_a_signed_decision(tmp_path: Path) -> None:
    generate_keypair(str(tmp_path / "alice.key"))
    reg = tmp_path / "reg"
    keys = ["--registry", str(reg), "--trusted-keys", str(tmp_path / "alice.key.pub")]
    sign = ["--sign-key", str(tmp_path / "alice.key")]
    assert dt("ensure", "word_count", *keys, *sign).returncode == 0
    unsigned = _reuse(keys)
    assert unsigned.returncode == 14
    assert "count_words was NOT made an alias of word_count" in unsigned.stderr
    assert not (reg / "count_words").exists()

    assert _reuse(keys, *sign).returncode == 0
    manifest = json.loads((reg / "count_words" / "manifest.json").read_text())
    record = manifest["chain"][-1]
    assert (record["action"], record["target"], record["versions"]) == ("alias", "word_count",
                                                                        [])
    assert dt("call", "count_words", "--params", '{"text": "a"}', *keys).returncode == 0

    # someone who can write the registry points the alias elsewhere: refused
    assert dt("ensure", "slugify_text", *keys, *sign).returncode == 0
    manifest["alias"] = "slugify_text"
    (reg / "count_words" / "manifest.json").write_text(json.dumps(manifest))
    moved = dt("call", "count_words", "--params", '{"text": "a"}', *keys)
    assert moved.returncode == 16 and "chain_mismatch" in moved.stderr
    # or forges an alias with no signed decision at all
    (reg / "tally_words").mkdir()
    (reg / "tally_words" / "manifest.json").write_text(json.dumps(
        {"format": 1, "name": "tally_words", "current": None, "alias": "word_count",
         "versions": [], "history": []}))
    forged = dt("call", "tally_words", "--params", '{"text": "a"}', *keys)
    assert forged.returncode == 16 and "no_chain" in forged.stderr
    assert dt("review", *keys).returncode == 1

    # the fix the hint names: a signed unalias
    assert dt("unalias", "count_words", *keys).returncode == 14
    assert dt("unalias", "count_words", *keys, *sign).returncode == 0
    after = json.loads((reg / "count_words" / "manifest.json").read_text())
    assert "alias" not in after and after["chain"][-1]["target"] is None
    assert "count_words" not in dt("list", *keys).stdout


REGISTRY = "0123456789abcdef0123456789abcdef"


def test_an_alias_record_in_the_chain(tmp_path: Path) -> None:
    generate_keypair(str(tmp_path / "k"))
    signer = load_signing_key(str(tmp_path / "k"))
    fields = {"tool": "count_words", "registry": REGISTRY, "seq": 0, "prev": None,
              "versions": [], "current": None, "statuses": {}, "digests": {}, "by": "alice",
              "time": "t", "reason": None}
    record = chain.new_record(signer, action="alias", extra={"target": "word_count"}, **fields)
    parsed = chain.parse_record(record, "count_words", 0, None)
    assert parsed.alias == "word_count" and chain.signature_problem(record) is None
    with pytest.raises(ValueError, match="target"):
        chain.new_record(signer, action="alias", **fields)  # the target is required
    with pytest.raises(ValueError, match="carries exactly"):
        chain.new_record(signer, action="approve", extra={"target": "x"}, **fields)
    for bad in ({"target": "count_words"}, {"target": "../x"}, {"target": 3}):
        forged = chain.new_record(signer, action="alias", extra={"target": "word_count"},
                                  **fields)
        forged.update(bad)
        with pytest.raises(chain.ChainError):
            chain.parse_record(forged, "count_words", 0, None)
    moving = chain.new_record(signer, action="alias", extra={"target": "word_count"},
                              **{**fields, "versions": [1]})
    with pytest.raises(chain.ChainError, match="moves no version"):
        chain.parse_record(moving, "count_words", 0, None)
    verdict = chain.judge("count_words", [record], None, {}, frozenset({signer.public_key}),
                          alias="word_count", registry=REGISTRY, digests={})
    assert verdict.code is None
    wrong = chain.judge("count_words", [record], None, {}, frozenset({signer.public_key}),
                        alias="slugify_text", registry=REGISTRY, digests={})
    assert wrong.code == chain.CHAIN_MISMATCH
    none = chain.judge("count_words", [], None, {}, frozenset({signer.public_key}),
                       alias="word_count", registry=REGISTRY, digests={})
    assert none.code == chain.NO_CHAIN


def test_a_manifest_alias_with_versions_is_invalid(tmp_path: Path) -> None:
    reg, _ = _reg(tmp_path)
    path = reg / "word_count" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["alias"] = "slugify_text"
    path.write_text(json.dumps(manifest))
    state = Registry.open(reg).tool("word_count")
    assert state.error is not None and "alias" in state.error and state.current is None
