"""dyntools.base.jsontext writes and reads JSON text exactly as the json package does: the same
text, the same value, the same error (its type and message), for every option the gate uses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dyntools.base import jsontext
from tests.fresh import fresh_stdout

KEYS = st.one_of(st.text(max_size=8), st.integers(-5, 5), st.floats(allow_nan=True),
                 st.booleans(), st.none())
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                   st.text(max_size=12), st.sampled_from([b"x", {1, 2}, object(), 1j]))
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner),
    st.dictionaries(KEYS, inner, max_size=4)), max_leaves=20)
OPTIONS = st.fixed_dictionaries({"sort_keys": st.booleans(), "ensure_ascii": st.booleans(),
                                 "allow_nan": st.booleans()})


def outcome(function: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        result = function(*args, **kwargs)
    except Exception as exc:  # both sides must fail alike
        return type(exc), str(exc)
    return type(result), repr(result)  # repr: NaN equal to NaN, -0.0 apart from 0.0


@settings(max_examples=400)
@given(VALUES, OPTIONS)
def test_dumps_is_json_dumps(value: Any, options: dict[str, bool]) -> None:
    assert outcome(jsontext.dumps, value, **options) == outcome(json.dumps, value, **options)


def test_dumps_refuses_a_circular_document_as_json_does() -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    assert outcome(jsontext.dumps, loop) == outcome(json.dumps, loop)
    shared = [1]
    assert jsontext.dumps([shared, shared]) == "[[1], [1]]"  # seen twice, not circular


def test_an_error_leaves_nothing_behind_for_the_next_document() -> None:
    value: dict[str, Any] = {"a": [1, {2}]}
    for _ in range(3):
        assert outcome(jsontext.dumps, value) == outcome(json.dumps, value)
    assert jsontext.dumps(value["a"][:1]) == "[1]"


JSON_TEXT = st.one_of(
    st.text(max_size=30),
    st.builds(lambda v, a, b: a + json.dumps(v) + b,
              st.recursive(st.one_of(st.none(), st.booleans(), st.integers(),
                                     st.floats(), st.text(max_size=8)),
                           lambda inner: st.one_of(
                               st.lists(inner, max_size=3),
                               st.dictionaries(st.text(max_size=4), inner, max_size=3)),
                           max_leaves=10),
              st.sampled_from(["", " ", "\n\t", "\ufeff", "x", " \r"]),
              st.sampled_from(["", " ", "\n", " x", "]", "\x0c"])),
    st.sampled_from(["", " ", "NaN", "[NaN]", '{"a": -Infinity}', "-Infinity", '"\\ud800"',
                     '{"a": 1,}', "[1, 2", "01", '"a\x01"', "1e400", "-0", "[]]", "\u00a01"]))


@settings(max_examples=400)
@given(JSON_TEXT)
def test_loads_is_json_loads(text: str) -> None:
    assert outcome(jsontext.loads, text) == outcome(json.loads, text)


@pytest.mark.parametrize("value", [b"[1]", 7, None])
def test_loads_refuses_what_is_not_a_str_as_json_does(value: Any) -> None:
    assert outcome(jsontext.loads, value) == outcome(json.loads, value)


def test_neither_imports_the_json_package_on_its_way() -> None:
    probe = ("import sys\nfrom dyntools.base import jsontext\n"
             "text = jsontext.dumps({'b': [1.5, None, 'é'], 'a': True}, sort_keys=True,"
             " ensure_ascii=False, allow_nan=False)\n"
             "value = jsontext.loads(' ' + text + '\\n')\n"
             "print(text, value == {'a': True, 'b': [1.5, None, 'é']},"
             " sorted(m for m in ('json', 're') if m in sys.modules))\n")
    assert fresh_stdout(probe) == '{"a": true, "b": [1.5, null, "é"]} True []'
