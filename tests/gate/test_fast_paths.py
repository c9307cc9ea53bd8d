"""The gate's shortcuts never change a verdict: each is checked against the slow path it skips.

- DT007: the regular-expression skip of strings and comments says "may hold a non-ASCII
  identifier" for every text in which the tokenizer finds one;
- the metadata's JSON text says "may hold hidden text" whenever the per-literal walk would
  report some;
- a top-level literal evaluated once counts the same nodes as the walk it replaces, so the
  node and depth limits fire at the same place;
- dyntools.base.jsonschema_safe's leaf and keyword shortcuts give the cost model's answer.
"""

from __future__ import annotations

import ast
import json
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dyntools.base.jsonschema_safe import _applied_subschemas, value_cost_ns
from dyntools.gate import check_source, load_policy, visitor
from dyntools.gate.identifiers import may_hold_non_ascii_identifier, tokenized_non_ascii_identifiers
from dyntools.gate.literals import NotLiteral, literal_value, measured_literal
from dyntools.gate.metatext import check_metadata_text, has_hidden_text
from tests.support.budget import examples

REPO = Path(__file__).resolve().parents[2]
CORPUS = sorted((REPO / "tests" / "gate" / "cases").glob("*/*.py"))
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# ----------------------------------------------------------------------------- DT007

WORDS = ["x", "é", "ｅｖａｌ", "a\u203fb", "ñame", "_", "东", "ℌ", "ǅ", "Ⅸ", "A", "q1"]
TEXT = st.text(alphabet=st.sampled_from(list("ab '\"\\#{}\n\té东\u2028\u00a0→")), max_size=12)


def _inside(body: str, quote: str, prefix: str, *, lines: bool = False) -> str:
    """`body` made legal inside a string with this quote and prefix (one line unless
    `lines`): still full of quotes, backslashes, braces and non-ASCII letters, so the skip's
    pattern meets them, but the program parses (one that does not never reaches the skip)."""
    body = body.replace("\\", "\\\\").replace(quote, "\\" + quote)
    if not lines:
        body = body.replace("\n", "\\n")
    if "b" in prefix.lower():
        body = body.encode("ascii", "backslashreplace").decode("ascii")
    if "f" in prefix.lower():
        body = body.replace("{", "{{").replace("}", "}}")
    return body


@st.composite
def programs(draw: st.DrawFn) -> str:
    """Lines of assignments, strings of every kind (with quotes, escapes and braces inside),
    comments, f-strings and continuations, most spelling identifiers in non-ASCII letters."""
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        name = draw(st.sampled_from(WORDS)) + draw(st.sampled_from(["", "2", "_z"]))
        text = draw(TEXT)
        kind = draw(st.integers(0, 7))
        quote = draw(st.sampled_from(["'", '"']))
        prefix = draw(st.sampled_from(["", "r", "b", "f", "rb", "F", "u"]))
        body = _inside(text, quote, prefix)
        if kind == 0:
            lines.append(f"{name} = {prefix}{quote}{body}{quote}")
        elif kind == 1:
            lines.append(f"{name} = {prefix}{quote * 3}{_inside(text, quote, prefix, lines=True)}"
                         f"{quote * 3}")
        elif kind == 2:
            lines.append(f"{name} = 1  # {text.replace(chr(10), ' ')}")
        elif kind == 3:
            lines.append(f"{name} = f{quote}{{{draw(st.sampled_from(WORDS))}}}"
                         f"{_inside(text, quote, 'f')}{quote}")
        elif kind == 4:
            lines.append(f"{name} = (1,\n    2)  # {text.replace(chr(10), ' ')}")
        elif kind == 5:
            lines.append(f"{name} = 'a' \\\n    'b'")
        elif kind == 6:
            lines.append(f"x = {quote}{_inside(text, quote, '')}{quote}.{name}")
        else:
            lines.append(f"def {name}(a={prefix}{quote}{body}{quote}):\n    return a")
    return "\n".join(lines) + "\n"


def _parses(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes in generated strings
        try:
            ast.parse(text)
        except (SyntaxError, ValueError):
            return False
    return True


@SETTINGS
@given(programs())
def test_the_identifier_skip_never_hides_what_the_tokenizer_finds(text: str) -> None:
    """Every example counted reaches the assertion: the others are rejected (`assume`), and
    the generator makes few of those (most programs parse and spell a non-ASCII name)."""
    assume(_parses(text) and not text.isascii())
    found = tokenized_non_ascii_identifiers(text)
    assume(found)
    assert may_hold_non_ascii_identifier(text), (text, found)


def test_the_identifier_skip_on_every_case_file() -> None:
    for path in CORPUS:
        text = path.read_bytes().decode("utf-8", "replace")
        if not _parses(text) or text.isascii():
            continue
        if tokenized_non_ascii_identifiers(text):
            assert may_hold_non_ascii_identifier(text), path.name


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 701 f-strings")
def test_an_fstring_nesting_its_own_quotes_is_tokenized() -> None:
    text = 'd = {"k": 1}\nx = f"{d["k"]}{ｅｖａｌ}"\n'
    assert may_hold_non_ascii_identifier(text)


# ----------------------------------------------------------------------------- hidden text

SPICY = st.text(alphabet=st.sampled_from(
    list("ab\\rfu0\t\n\x00\x01\x0c\x0d\x1b\x7f\x85\u00ad\u200b\u202e\u2028\ue000\U000e0041é东")),
    max_size=8)


def _literal(value: object) -> str:
    return repr(value)


@SETTINGS
@given(st.dictionaries(SPICY, st.one_of(SPICY, st.lists(SPICY, max_size=3)), max_size=4),
       SPICY)
def test_the_json_precheck_never_hides_what_the_walk_reports(params: dict[str, object],
                                                              description: str) -> None:
    source = f"DESCRIPTION = {_literal(description)}\nPARAMS = {_literal(params)}\n"
    nodes = {stmt.targets[0].id: stmt.value  # type: ignore[attr-defined]
             for stmt in ast.parse(source).body}
    reported: list[str] = []
    check_metadata_text(nodes, lambda node, code, message: reported.append(code))
    blob = json.dumps([description, params], ensure_ascii=False)
    if reported:
        assert has_hidden_text(blob), (description, params, reported)


# ----------------------------------------------------------------------------- literals

def _walk_counts(source: str) -> tuple[int, list[tuple[int, str]]]:
    policy = load_policy()
    tree = ast.parse(source)
    lines = source.split("\n")
    walker = visitor.GateVisitor(policy, lines, source.isascii())
    walker.run(tree)
    return walker.nodes, sorted((f.line, f.code) for f in walker.findings)


def test_a_literal_evaluated_once_counts_what_the_walk_counts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [p.read_text("utf-8", "replace") for p in CORPUS]
    sources += ['X = [1, -2, +3.5, "a", None, True, (1, 2), {"k": [{"d": {}}]}, {1, 2}]\n',
                "X = {'a': [-1] * 2}\n", "X = [" * 40 + "]" * 40 + "\n"]
    fast = {}
    for source in sources:
        try:
            fast[source] = _walk_counts(source)
        except SyntaxError:
            continue
    monkeypatch.setattr(visitor, "_DISPLAYS", frozenset())
    for source, counted in fast.items():
        assert _walk_counts(source) == counted, source[:200]


@given(st.recursive(
    st.one_of(st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=3),
              st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                            st.dictionaries(st.text(max_size=2), inner, max_size=3)),
    max_leaves=20))
@settings(max_examples=200, deadline=None)
def test_measured_literal_is_literal_value(value: object) -> None:
    node = ast.parse(repr(value), mode="eval").body
    try:
        expected = literal_value(node)
    except NotLiteral:
        with pytest.raises(NotLiteral):
            measured_literal(node)
        return
    measured, count, _ = measured_literal(node)
    assert measured == expected
    assert count == sum(1 for n in ast.walk(node) if isinstance(n, ast.expr))


def test_node_limit_fires_inside_a_top_level_literal_as_before() -> None:
    limit = load_policy().limits.max_nodes
    source = "X = [" + "1, " * (limit + 5) + "]\n"
    report = check_source(source)
    assert ("DT009", 1) in {(f.code, f.line) for f in report.findings}


# ----------------------------------------------------------------------------- schemas

SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "string", "maxLength": 5}}},
    {"type": "object", "properties": {"a": {"enum": [1.5, 2.5, [1]]}}, "required": ["a"]},
    {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "number"},
                                                "uniqueItems": True}},
    {"type": "object", "properties": {"n": {"type": "number", "multipleOf": 0.01}}},
    {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
     "properties": {"a": {}, "b": {"type": "integer"}}},
    {"type": "object", "$defs": {"s": {"type": "string"}},
     "properties": {"x": {"$ref": "#/$defs/s"}, "y": {"items": {"$ref": "#/$defs/s"}}}},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_the_leaf_shortcut_gives_the_cost_model_s_answer(
        schema: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    import dyntools.base.jsonschema_safe as safe

    fast = value_cost_ns(schema), safe._fan_out_problem(schema)
    general = safe._applied_subschemas

    def no_leaf(root: object, node: object) -> object:
        found = general(root, node)
        return ([], (([], []), ([], []))) if found is safe._LEAF else found

    monkeypatch.setattr(safe, "_applied_subschemas", no_leaf)
    assert (value_cost_ns(schema), safe._fan_out_problem(schema)) == fast
    assert _applied_subschemas is general


# ----------------------------------------------------------------------------- reading

def test_a_bounded_read_asks_for_the_file_s_size_and_still_reads_to_the_cap(
        tmp_path: Path) -> None:
    from dyntools.gate import read_bounded

    path = tmp_path / "tool.py"
    path.write_bytes(b"x" * 100)
    with path.open("rb") as handle:
        assert read_bounded(handle, 100, 1000) == b"x" * 100
    with path.open("rb") as handle:  # grew after its stat said 10 bytes
        assert read_bounded(handle, 10, 1000) == b"x" * 100
    with path.open("rb") as handle:  # over the limit: one byte more than allowed
        assert read_bounded(handle, 100, 50) == b"x" * 51
    with path.open("rb") as handle:
        assert read_bounded(handle, 10, 50) == b"x" * 51


LEAF_SCHEMAS = st.one_of(
    st.booleans(),
    st.fixed_dictionaries({"type": st.sampled_from(["string", "number", "integer", "array"])},
                          optional={
        "enum": st.lists(st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=2),
                                   st.lists(st.integers(), max_size=2)), max_size=6),
        "multipleOf": st.sampled_from([0.01, 1e-5, 3, 2.5]),
        "required": st.lists(st.text(max_size=3), max_size=4),
        "uniqueItems": st.booleans(),
        "dependentRequired": st.dictionaries(st.text(max_size=2), st.lists(st.text(max_size=2),
                                                                            max_size=3), max_size=3),
        "unevaluatedProperties": st.booleans(),
    }))


def _tree_schema(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.fixed_dictionaries({}, optional={
        "properties": st.dictionaries(st.text(max_size=3), children, max_size=4),
        "patternProperties": st.dictionaries(st.sampled_from(["^a", "^b", "x"]), children,
                                             max_size=2),
        "additionalProperties": children,
        "propertyNames": children,
        "items": st.one_of(children, st.lists(children, max_size=3)),
        "prefixItems": st.lists(children, max_size=3),
        "contains": children,
        "enum": st.lists(st.floats(allow_nan=False), max_size=5),
        "uniqueItems": st.booleans(),
        "required": st.lists(st.text(max_size=2), max_size=3),
    })


@given(st.recursive(LEAF_SCHEMAS, _tree_schema, max_leaves=25))
@settings(max_examples=examples(100, 3000), deadline=None)
def test_the_one_pass_tree_bounds_are_the_general_walks(schema: object) -> None:
    import dyntools.base.jsonschema_safe as safe

    if not isinstance(schema, dict):
        return
    tree = safe._tree_bounds(schema)
    assert tree is not None
    fan, cost = tree
    assert safe._fan_out_text(fan) == safe._fan_out_problem(schema)
    assert cost == value_cost_ns(schema)
    # and the fan-out count itself, not only its verdict
    general = _general_fan_out(schema)
    assert fan == general


def _general_fan_out(schema: dict[str, object]) -> int:
    """The general walk's count (capped at MAX + 1 as both cap it): the smallest limit its
    verdict accepts (the message does not carry the count)."""
    import dyntools.base.jsonschema_safe as safe

    limit = safe.MAX_SUBSCHEMAS_PER_VALUE
    return next((n for n in range(limit + 1) if _verdict_at(schema, n) is None), limit + 1)


def _verdict_at(schema: dict[str, object], limit: int) -> str | None:
    import dyntools.base.jsonschema_safe as safe

    saved = safe.MAX_SUBSCHEMAS_PER_VALUE
    try:
        safe.MAX_SUBSCHEMAS_PER_VALUE = limit
        return safe._fan_out_problem(schema)
    finally:
        safe.MAX_SUBSCHEMAS_PER_VALUE = saved
