"""Search over the tools a catalog can call: SQLite FTS5 with BM25, from the standard library.

    index = ToolIndex()
    index.sync(catalog.list_tools())            # kept in step: only what changed is re-indexed
    index.search("count words in text", limit=5)  # [SearchHit(tool, score)], best first
    index.similar("count_words", "Counts the words of a text.")  # [(tool, 0.82)], 0..1

What is indexed, per tool: its name (split at underscores), its description, and its PARAMS
property names with their titles and descriptions (top level). The tokenizer is FTS5's
`porter unicode61 remove_diacritics 2`, so "counts" finds "count" and "Crème" finds "creme".

Where the index lives: in memory, one per `Catalog`, rebuilt from `list_tools()` on demand.
The registry's hash-checked, re-gated data is the only source: there is no index file to go
stale, to be edited behind the registry's back or to write into a read-only registry. Opening
costs nothing until the first search; `sync` compares each tool's (origin, version,
description, schema) with what is indexed and touches only the differences, so a search after
a new version re-indexes one row.

A query is user or model input, never FTS5 syntax: it is cut into words (letters and digits;
everything else, quotes, `*`, `:`, `^`, parentheses, is a separator), each word is quoted as
an FTS5 string, and the words are OR-ed, so `NEAR`, `AND`, `"` or `col:` are plain words.
At most `MAX_QUERY_WORDS` words of at most `MAX_WORD_CHARS` characters are used.

`similar` answers "is there already a tool that does this job?": the candidate's name and
description terms against the request's (stemmed, stop words dropped), weighted by rarity
(inverse document frequency). The score is 0..1: mostly how much of the request the tool's
own words cover, partly how much of the tool the request covers.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dyntools.pipeline.toolmeta import Tool

MAX_QUERY_CHARS = 4096
MAX_QUERY_WORDS = 32
MAX_WORD_CHARS = 64
MAX_LIMIT = 100
# Column weights for BM25: a word in the name counts most, then the description, then PARAMS.
WEIGHTS = (8.0, 3.0, 1.0)
REQUEST_SHARE = 0.7  # similarity: how much of the request is covered weighs the most
TOKENIZER = "porter unicode61 remove_diacritics 2"
# Stemmed (porter) forms of words that say nothing about what a tool does.
STOP_WORDS = frozenset({
    "a", "an", "the", "of", "in", "on", "to", "for", "and", "or", "by", "with", "from", "as",
    "at", "is", "it", "be", "are", "thi", "that", "these", "those", "its", "into", "each",
    "given", "return", "returns", "give", "gives", "tool", "function", "some", "ani", "all",
    "which", "what",
})

_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A tool and its 0..1 score: for `search`, how much of the query (weighted by rarity) the
    tool's name, description and PARAMS cover; for `similar`, see `ToolIndex.similar`.
    `bm25` is FTS5's relevance (higher is better), which orders `search` results."""

    tool: Tool
    score: float
    bm25: float | None = None

    @property
    def name(self) -> str:
        return self.tool.name

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.tool.name, "score": self.score, "bm25": self.bm25,
                "description": self.tool.description, "params": dict(self.tool.params),
                "origin": self.tool.origin, "version": self.tool.version}


def query_words(query: str) -> list[str]:
    """The words of a query, as plain text (never query syntax), capped."""
    if not isinstance(query, str):
        return []
    words = _WORD.findall(query[:MAX_QUERY_CHARS])
    return [word[:MAX_WORD_CHARS] for word in words[:MAX_QUERY_WORDS]]


def fts_query(query: str) -> str | None:
    """An FTS5 MATCH expression that can only mean "any of these words"; None if empty."""
    words = query_words(query)
    if not words:
        return None
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)


def params_text(params: Mapping[str, Any]) -> str:
    """PARAMS property names, titles and descriptions, as indexable text."""
    properties = params.get("properties")
    if not isinstance(properties, Mapping):
        return ""
    parts: list[str] = []
    for key, value in properties.items():
        parts.append(str(key).replace("_", " "))
        if isinstance(value, Mapping):
            for field in ("title", "description"):
                text = value.get(field)
                if isinstance(text, str):
                    parts.append(text)
    return " ".join(parts)


def _same(indexed: Tool, tool: Tool) -> bool:
    """Cheap identity check: a registry tool's metadata is cached, so an unchanged version
    hands back the very same PARAMS object."""
    return (indexed.params is tool.params and indexed.description == tool.description
            and indexed.origin == tool.origin and indexed.version == tool.version)


def _fingerprint(tool: Tool) -> tuple[Any, ...]:
    try:
        schema = json.dumps(tool.params, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        schema = repr(id(tool.params))
    return (tool.origin, tool.version, tool.description, schema)


class ToolIndex:
    """An in-memory FTS5 index of `Tool` values. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.executescript(f"""
            CREATE VIRTUAL TABLE docs USING fts5(name, description, params,
                tokenize = '{TOKENIZER}');
            CREATE VIRTUAL TABLE probe USING fts5(text, tokenize = '{TOKENIZER}');
            CREATE VIRTUAL TABLE probe_terms USING fts5vocab(probe, 'instance');
        """)
        self._rows: dict[str, tuple[int, tuple[Any, ...], Tool]] = {}
        # Per tool: the stemmed terms of its name and description (for `similar`), and how
        # many tools hold each term (document frequency).
        self._terms: dict[str, frozenset[str]] = {}
        self._all_terms: dict[str, frozenset[str]] = {}  # with PARAMS: `search` scores
        self._frequency: Counter[str] = Counter()
        self._next_rowid = 1

    # ------------------------------------------------------------------------------ keeping

    def sync(self, tools: Iterable[Tool]) -> None:
        """Make the index hold exactly `tools` (by name), re-indexing only what changed."""
        wanted = {tool.name: tool for tool in tools}
        with self._lock, self._db:
            for name in [n for n in self._rows if n not in wanted]:
                rowid, _, _ = self._rows.pop(name)
                self._db.execute("DELETE FROM docs WHERE rowid = ?", (rowid,))
                self._frequency.subtract(self._terms.pop(name, frozenset()))
                self._all_terms.pop(name, None)
            for name, tool in wanted.items():
                known = self._rows.get(name)
                if known is not None and _same(known[2], tool):
                    continue  # the same schema object: nothing to serialise or compare
                fingerprint = _fingerprint(tool)
                if known is not None and known[1] == fingerprint:
                    if known[2] is not tool:
                        self._rows[name] = (known[0], fingerprint, tool)
                    continue
                if known is not None:
                    self._db.execute("DELETE FROM docs WHERE rowid = ?", (known[0],))
                    self._frequency.subtract(self._terms.pop(name, frozenset()))
                rowid = self._next_rowid
                self._next_rowid += 1
                words, description = _clean(name.replace("_", " ")), _clean(tool.description)
                properties = _clean(params_text(tool.params))
                self._db.execute(
                    "INSERT INTO docs (rowid, name, description, params) VALUES (?, ?, ?, ?)",
                    (rowid, words, description, properties),
                )
                terms = frozenset(self._probe_terms(f"{words} {description}"))
                self._all_terms[name] = terms | self._probe_terms(properties)
                self._terms[name] = terms
                self._frequency.update(terms)
                self._rows[name] = (rowid, fingerprint, tool)

    def __len__(self) -> int:
        with self._lock:
            return len(self._rows)

    # ----------------------------------------------------------------------------- search

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """The tools matching any word of `query`, best BM25 first (score: higher is better)."""
        expression = fts_query(query)
        limit = max(1, min(int(limit), MAX_LIMIT))
        if expression is None:
            return []
        with self._lock:
            rows = self._db.execute(
                "SELECT rowid, bm25(docs, ?, ?, ?) AS rank FROM docs WHERE docs MATCH ? "
                "ORDER BY rank LIMIT ?", (*WEIGHTS, expression, limit),
            ).fetchall()
            by_rowid = {rowid: tool for rowid, _, tool in self._rows.values()}
            request = self._probe_terms(_clean(" ".join(query_words(query))))
            total = max(len(self._rows), 1)
            hits = []
            for rowid, rank in rows:
                tool = by_rowid.get(rowid)
                if tool is None:
                    continue
                terms = self._all_terms.get(tool.name, frozenset())
                weight = sum(self._idf(t, total) for t in request) or 1.0
                covered = sum(self._idf(t, total) for t in request & terms)
                score = round(covered / weight, 2)
                if score > 0:  # 0: only stop words matched ("a", "the")
                    hits.append(SearchHit(tool, score, round(-rank, 4)))
        return hits

    def similar(self, name: str, description: str, *, limit: int = 5,
                exclude: str | None = None) -> list[SearchHit]:
        """Tools whose name and description do the job `name`/`description` describe, with a
        0..1 score, best first (every candidate that shares a word; the caller applies its
        threshold)."""
        # The request is caller text (a CLI flag, a model's ensure_tool): bounded like a query.
        request_text = f"{name.replace('_', ' ')} {description}"[:MAX_QUERY_CHARS]
        candidates = self.search(request_text, limit=MAX_LIMIT)
        if not candidates:
            return []
        with self._lock:
            request = self._probe_terms(_clean(request_text))
            total = max(len(self._rows), 1)
            hits: list[SearchHit] = []
            for hit in candidates:
                if hit.name == exclude:
                    continue
                terms = self._terms.get(hit.name, frozenset())
                weights = {term: self._idf(term, total) for term in request | terms}
                covered = sum(weights[t] for t in request & terms)
                of_request = covered / (sum(weights[t] for t in request) or 1.0)
                of_tool = covered / (sum(weights[t] for t in terms) or 1.0)
                score = REQUEST_SHARE * of_request + (1 - REQUEST_SHARE) * of_tool
                hits.append(SearchHit(hit.tool, round(score, 2)))
        hits.sort(key=lambda h: (-h.score, h.name))
        return hits[:max(1, min(int(limit), MAX_LIMIT))]

    def _probe_terms(self, text: str) -> set[str]:
        """`text` tokenized exactly as the index tokenizes (stemmed), stop words dropped."""
        self._db.execute("INSERT INTO probe (rowid, text) VALUES (1, ?)", (text,))
        try:
            rows = self._db.execute("SELECT term FROM probe_terms").fetchall()
        finally:
            self._db.execute("DELETE FROM probe WHERE rowid = 1")
        return {term for (term,) in rows if term not in STOP_WORDS}

    def _idf(self, term: str, total: int) -> float:
        return 1.0 + math.log((total + 1) / (max(self._frequency[term], 0) + 1))

    def close(self) -> None:
        with self._lock:
            self._db.close()


def params_compatible(tool: Tool, params: Mapping[str, Any] | None,
                      examples: Iterable[Mapping[str, Any]] = ()) -> bool:
    """Whether `tool` can take what a request describes: every property the tool requires is
    one the requested schema declares, shared properties agree on their JSON type (an integer
    where a number is taken is fine), and every example's params pass the tool's schema."""
    from dyntools.errors import DyntoolsError
    from dyntools.pipeline.toolmeta import check_params

    if params is not None:
        wanted = params.get("properties")
        wanted = wanted if isinstance(wanted, Mapping) else {}
        have = tool.params.get("properties")
        have = have if isinstance(have, Mapping) else {}
        required = tool.params.get("required")
        for key in required if isinstance(required, list) else []:
            if key not in wanted:
                return False
        for key, spec in wanted.items():
            if key in have and not _types_agree(spec, have[key]):
                return False
    for example in examples:
        try:
            check_params(tool.params, dict(example.get("params") or {}), tool=tool.name)
        except (DyntoolsError, TypeError, ValueError):
            return False
    return True


def _types_agree(wanted: Any, have: Any) -> bool:
    if not isinstance(wanted, Mapping) or not isinstance(have, Mapping):
        return True
    want_type, have_type = wanted.get("type"), have.get("type")
    if want_type is None or have_type is None or want_type == have_type:
        return True
    return bool(want_type == "integer" and have_type == "number")


def _clean(text: str) -> str:
    """Text SQLite can bind: lone surrogates (invalid UTF-8) and NULs become spaces."""
    return text.encode("utf-8", "replace").decode("utf-8").replace("\x00", " ")
