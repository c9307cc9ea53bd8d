"""Search over the catalog (SQLite FTS5, BM25): what it finds, that it follows the registry,
that a query is never FTS5 syntax, and that `ensure` finds a tool doing the same job before
generating one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dyntools.catalog.core import Catalog
from dyntools.catalog.search import ToolIndex, fts_query, query_words
from dyntools.generators import ToolSpec
from dyntools.generators.offline import OfflineGenerator, template_source
from dyntools.pipeline.dyntools import Dyntools
from dyntools.pipeline.toolmeta import Tool
from dyntools.registry import Registry
from tests.support.cli import dyntools as cli

TEMPLATES = ("word_count", "slugify_text", "temperature_convert", "roman_numeral",
             "letter_frequency", "url_parts")


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry holding a few offline templates (written directly: no sandbox needed)."""
    root = tmp_path_factory.mktemp("search") / "registry"
    reg = Registry.open(root)
    for name in TEMPLATES:
        reg.add_version(name, template_source(name), {"generator": "offline"})
    return root


@pytest.fixture
def catalog(registry: Path) -> Any:
    with Catalog(Dyntools(registry, generator=OfflineGenerator()), generate=False) as built:
        yield built


def names(hits: list[Any]) -> list[str]:
    return [hit.name for hit in hits]


def test_finds_by_name_description_and_params(catalog: Catalog) -> None:
    assert names(catalog.search("count words"))[0] == "word_count"
    assert names(catalog.search("Celsius"))[0] == "temperature_convert"
    assert names(catalog.search("slug"))[0] == "slugify_text"
    assert names(catalog.search("Roman numerals"))[0] == "roman_numeral"
    # "fragment" only appears in url_parts' description; "scale" is a PARAMS property there
    assert names(catalog.search("fragment"))[0] == "url_parts"
    hits = catalog.search("counting words", limit=2)
    assert len(hits) <= 2 and 0 < hits[0].score <= 1 and hits[0].bm25 is not None


def test_catalog_tools_are_searched_too(catalog: Catalog) -> None:
    @catalog.tool
    def multiply(a: float, b: float) -> float:
        """Multiplies two numbers."""
        return a * b

    assert names(catalog.search("multiply numbers"))[0] == "multiply"
    catalog.remove("multiply")
    assert "multiply" not in names(catalog.search("multiply numbers"))


def test_the_index_follows_new_versions_and_rollbacks(tmp_path: Path) -> None:
    root = tmp_path / "registry"
    reg = Registry.open(root)
    reg.add_version("word_count", template_source("word_count"), {"generator": "offline"})
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    with Catalog(Dyntools(root), generate=False) as catalog:
        assert names(catalog.search("words")) == ["word_count"]
        assert catalog.search("tokens") == []
        changed = template_source("word_count").replace(
            "Counts the words", "Counts the tokens")
        reg.add_version("word_count", changed, {"generator": "file"})
        catalog.dyntools.registry.refresh("word_count")
        assert names(catalog.search("tokens")) == ["word_count"]
        reg.rollback("word_count", 1)
        catalog.dyntools.registry.refresh("word_count")
        assert catalog.search("tokens") == []
    # Searching wrote nothing into the registry (the index lives in memory only): the files
    # there are the ones the registry itself wrote for v2.
    after = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    assert [p for p in after if p not in before] == ["word_count/v2.py"]


HOSTILE = [
    '"', '""', "'", "*", "NEAR", "NEAR(a b, 2)", "a AND", "OR OR", "NOT", "^word", "name:word",
    "{name description}: x", "(", ")", "word*", "-word", "+", "\x00", "\ud800", "\U0001f600",
    "crème brûlée", "日本語のテキスト", "word_count", "a" * 100_000, "w " * 10_000, "",
    "\u202e\u2066 slug", "%", "\\", "';DROP TABLE docs;--",
]


@pytest.mark.parametrize("query", HOSTILE, ids=range(len(HOSTILE)))
def test_a_query_is_never_syntax(catalog: Catalog, query: str) -> None:
    hits = catalog.search(query)
    assert isinstance(hits, list) and len(hits) <= 10
    expression = fts_query(query)
    if expression is not None:
        assert expression.count('"') % 2 == 0
        assert len(query_words(query)) <= 32


def test_operators_are_plain_words() -> None:
    index = ToolIndex()
    index.sync([Tool("near_thing", "Finds what is NEAR.", {"type": "object"}, "catalog"),
                Tool("other_thing", "Something else.", {"type": "object"}, "catalog")])
    assert names(index.search("NEAR")) == ["near_thing"]
    assert names(index.search("other OR")) == ["other_thing"]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_a_safe_query(query: str) -> None:
    _FUZZ_INDEX.search(query, limit=5)
    _FUZZ_INDEX.similar("x_y", query)


_FUZZ_INDEX = ToolIndex()
_FUZZ_INDEX.sync([Tool("word_count", "Counts words.", {"type": "object", "properties": {
    "text": {"type": "string", "description": "the text"}}}, "catalog")])


def test_similar_needs_the_same_job_and_compatible_params(catalog: Catalog) -> None:
    spec = ToolSpec("count_words", "Counts the words in a text.")
    [hit] = catalog.similar(spec, limit=1)
    assert hit.name == "word_count" and 0.6 <= hit.score <= 1.0
    assert catalog.similar(ToolSpec("count_words", "")) == []
    assert catalog.similar(ToolSpec("parse_csv", "Parses a CSV file into rows.")) == []
    # PARAMS: the tool requires "text"; a request whose schema has no "text" cannot use it
    other = {"type": "object", "properties": {"body": {"type": "string"}},
             "required": ["body"]}
    assert catalog.similar(ToolSpec("count_words", spec.description, other)) == []
    wrong_type = {"type": "object", "properties": {"text": {"type": "integer"}}}
    assert catalog.similar(ToolSpec("count_words", spec.description, wrong_type)) == []
    # examples must pass the tool's schema
    bad_example = ({"params": {"text": 3}, "result": {}},)
    assert catalog.similar(ToolSpec("count_words", spec.description,
                                    examples=bad_example)) == []
    good_example = ({"params": {"text": "a b"}, "result": {"words": 2}},)
    assert names(catalog.similar(ToolSpec("count_words", spec.description,
                                          examples=good_example))) == ["word_count"]
    # a tool is never "similar" to itself
    assert catalog.similar(ToolSpec("word_count", "Counts the words of a text.")) == []



def test_search_command(registry: Path, tmp_path: Path) -> None:
    text = cli("search", "count the words", "--registry", str(registry), cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].split() == ["NAME", "SCORE", "DESCRIPTION"]
    assert lines[1].split()[0] == "word_count"
    as_json = cli("search", 'NEAR("slug" *', "--limit", "1", "--json", "--registry",
                  str(registry), cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    body = json.loads(as_json.stdout)
    assert [hit["name"] for hit in body["hits"]] == ["slugify_text"]
    assert set(body["hits"][0]) >= {"name", "score", "bm25", "description", "params"}
    none = cli("search", "zzzz", "--registry", str(registry), cwd=tmp_path)
    assert none.returncode == 0 and "no tool matches" in none.stdout
    bad = cli("search", "x", "--limit", "0", "--registry", str(registry), cwd=tmp_path)
    assert bad.returncode == 2


def test_ensure_reports_and_reuses_a_similar_tool(tmp_path: Path) -> None:
    reg = str(tmp_path / "reg")
    assert cli("ensure", "word_count", "--registry", reg, cwd=tmp_path).returncode == 0
    described = ("count_words", "--description", "Counts the words in a text.",
                 "--registry", reg)
    reported = cli("ensure", *described, cwd=tmp_path)
    assert reported.returncode == 15  # reported, then generation tried (no template)
    assert reported.stderr.splitlines()[0].startswith("similar: word_count (0.")
    assert not (tmp_path / "reg" / "count_words").exists()

    reused = cli("ensure", *described, "--reuse-similar", "--params", '{"text": "a b c"}',
                 cwd=tmp_path)
    assert reused.returncode == 0, reused.stderr
    assert reused.stdout.splitlines() == [
        "count_words: served by word_count v1, which does the same job (nothing generated); "
        "count_words is now an alias of word_count (dyntools unalias count_words removes it)",
        '{"words": 3, "characters": 5, "lines": 1}']
    # the name asked for is an alias now (tests/registry/test_aliases.py), with no versions
    manifest = json.loads((tmp_path / "reg" / "count_words" / "manifest.json").read_text())
    assert manifest["alias"] == "word_count" and manifest["versions"] == []

    as_json = json.loads(cli("ensure", "count_the_words", *described[1:], "--reuse-similar",
                             "--json", cwd=tmp_path).stdout)
    assert as_json["reused"] == as_json["alias_of"] == "word_count"
    assert as_json["created"] is False
    assert as_json["similar"][0]["name"] == "word_count"
