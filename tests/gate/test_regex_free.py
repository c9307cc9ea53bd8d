"""A check imports no `re` (nor json, which imports it): each spelling that replaced a regular
expression on a check's way gives its pattern's answer on any text, and a check of ordinary
files, accepted or refused, ASCII or not, loads neither module (a fresh interpreter says)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dyntools.base.hidden_text import hidden_character_class, is_plain
from dyntools.base.jsonschema_safe import _is_array_index
from dyntools.base.terminal import terminal_safe
from dyntools.gate import hygiene, identifiers, metatext
from dyntools.gate.capabilities import is_dns_label, is_port_digits, is_upper_snake
from tests.fresh import fresh_stdout

REPO = Path(__file__).resolve().parents[2]
SETTINGS = settings(max_examples=500, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# Text made mostly of what the skip turns on: quotes, '#', backslashes, newlines, prefixes.
SOURCE_TEXT = st.text(alphabet=st.sampled_from(
    [*"'''\"\"\"##\\\\\n\nabfFrR =\t\rx", "é", "东", "\U0001f600", "\x00", "\x7f", "\ud800"]),
    max_size=40)
PIECES = st.lists(st.sampled_from([
    "'''", '"""', "'", '"', "#", "\\", "\n", "f", "rf", "é", "x = ", "'a'", '"b"', "# é\n",
    "'''é\n'''", '"\\""', "'\\\n'", "\\'", "ｅｖａｌ", "''''", '""""', "\r\n"]), max_size=12)


def _regex_skip_end(text: str) -> int:
    match = re.compile(identifiers._SKIP, re.DOTALL).match(text)
    return match.end() if match else 0


def _skip_end_in_characters(text: str) -> int:
    data = text.encode("utf-8", "surrogatepass")
    end = identifiers._skip_end(data.translate(identifiers._MARK_NON_ASCII))
    return len(data[:end].decode("utf-8", "surrogatepass"))


@SETTINGS
@given(st.one_of(SOURCE_TEXT, PIECES.map("".join), st.text(max_size=30)))
def test_the_identifier_skip_stops_where_its_pattern_does(text: str) -> None:
    assert _skip_end_in_characters(text) == _regex_skip_end(text)
    assert identifiers.may_hold_non_ascii_identifier(text) == (
        not text.isascii() and _regex_skip_end(text) != len(text))


def test_the_identifier_skip_on_the_repository_s_own_files() -> None:
    for path in sorted((REPO / "dyntools").rglob("*.py")) + sorted(
            (REPO / "tests" / "gate" / "cases").glob("*/*.py")):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        assert _skip_end_in_characters(text) == _regex_skip_end(text), path


SHAPES = st.one_of(st.text(alphabet="AZaz09_-é٣²", max_size=8), st.text(max_size=6),
                   st.sampled_from(["", "0", "00", "01", "-a", "a-", "a--b", "A_", "_A",
                                    "x" * 63, "x" * 64, "9" * 18, "9" * 19, "65535"]))


@SETTINGS
@given(SHAPES)
def test_the_shapes_are_their_patterns(text: str) -> None:
    assert is_upper_snake(text) == bool(re.fullmatch(r"[A-Z][A-Z0-9_]*", text))
    assert is_dns_label(text) == bool(re.fullmatch(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?",
                                                   text))
    assert is_port_digits(text) == bool(re.fullmatch(r"[0-9]{1,5}", text))
    assert _is_array_index(text) == bool(re.fullmatch(r"0|[1-9][0-9]{0,17}", text))


ANY_TEXT = st.one_of(st.text(max_size=20), st.text(
    alphabet=st.sampled_from(list("\t\n\r\x0b\x1b\x7f\x85 ~a\\bfru01\"é\u202e\u200b\ue000")),
    max_size=20))


@SETTINGS
@given(ANY_TEXT)
def test_plain_text_is_what_the_terminal_pattern_leaves_alone(text: str) -> None:
    assert is_plain(text) == (re.search("[^\t\n\x20-\x7e]", text) is None)


def _old_terminal_safe(value: str) -> str:
    def escape(match: re.Match[str]) -> str:
        ch = match.group()
        return ch if hidden_character_class(ch) is None else (
            ch.encode("unicode_escape").decode("ascii"))
    return re.sub("[^\t\n\x20-\x7e]", escape, value)


@SETTINGS
@given(ANY_TEXT)
def test_terminal_safe_escapes_what_its_pattern_did(text: str) -> None:
    assert terminal_safe(text) == _old_terminal_safe(text)


def _old_has_hidden_text(json_text: str) -> bool:
    return any(piece[0] == "\\" or hidden_character_class(piece) is not None
               for piece in set(re.findall(r"[^\x20-\x7e]|\\(?:u00[01]|[bfr])", json_text)))


@SETTINGS
@given(st.one_of(ANY_TEXT, st.lists(ANY_TEXT, max_size=3).map(
    lambda texts: json.dumps(texts, ensure_ascii=False))))
def test_the_metadata_precheck_is_its_pattern(json_text: str) -> None:
    assert metatext.has_hidden_text(json_text) == _old_has_hidden_text(json_text)


@SETTINGS
@given(st.one_of(ANY_TEXT, st.text(alphabet=st.sampled_from(
    ["é", "a", "\u202e", "\u200b", "\ue000", "\ufdd0", "東", "\U000e0041", "\x85"]),
    max_size=12)))
def test_the_unicode_pre_scan_finds_what_its_pattern_finds(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        return  # not UTF-8: check_bytes refuses it before this scan
    hidden = any(hidden_character_class(ch) in hygiene._SOURCE_KINDS
                 for ch in re.findall("[^\x00-\x7f]", text))
    assert bool(hygiene._scan_unicode(data, text)) == hidden


PROBE = r"""
import sys
from dyntools.gate import check_source, load_policy
policy = load_policy()
verdicts = []
for path in sys.argv[1:]:
    with open(path, "rb") as handle:
        verdicts.append(check_source(handle.read(), policy, path=path).accepted)
from dyntools.base.terminal import terminal_safe
terminal_safe("a.py: accepted\n")
print(verdicts, sorted(name for name in ("re", "json") if name in sys.modules))
"""

ACCENTED = '''"""Slugs for café menus: « Crème brûlée » becomes creme-brulee."""

NAME = "menu_slug"
DESCRIPTION = "Turn a dish's name (any language: café, 東京, naïve) into a URL slug."
PARAMS = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 200}},
          "required": ["name"], "additionalProperties": False}
EXAMPLES = [{"params": {"name": "Crème brûlée"}, "result": {"slug": "crème-brûlée"}},
            {"params": {"name": "a b"}, "result": {"slug": "a-b"}}]


def run(params):
    # «Keep» every letter, drop the rest — as a reader expects.
    words = "".join(ch if ch.isalnum() else " " for ch in params["name"].lower()).split()
    return {"slug": "-".join(words)}
'''


def test_a_check_of_ordinary_files_loads_neither_re_nor_json(tmp_path: Path) -> None:
    accented = tmp_path / "menu_slug.py"
    accented.write_text(ACCENTED, encoding="utf-8")
    refused = tmp_path / "refused.py"  # ASCII: a second non-ASCII file compiles the skip
    refused.write_text(ACCENTED.encode("ascii", "replace").decode("ascii").replace(
        'return {"slug"', 'eval("1")\n    return {"slug"'), encoding="utf-8")
    ascii_tool = REPO / "tests" / "gate" / "cases" / "accept" / sorted(
        p.name for p in (REPO / "tests" / "gate" / "cases" / "accept").glob("*.py"))[0]
    assert fresh_stdout(PROBE, str(accented), str(refused), str(ascii_tool),
                        cwd=tmp_path) == "[True, False, True] []"


SWITCH = r"""
import sys
from dyntools.gate.identifiers import may_hold_non_ascii_identifier as skip
answers = [skip("x = 'é'  # é\\n"), "re" in sys.modules, skip("ｅｖａｌ = 'é'"),
           "re" in sys.modules, skip("x = 'é'"), skip("ｅｖａｌ = 1")]
print(answers)
"""
LARGE_FIRST = r"""
import sys
from dyntools.gate.identifiers import may_hold_non_ascii_identifier as skip
print(skip("x = 'é'\n" * 5000), "re" in sys.modules)
"""


def test_the_first_file_is_skipped_by_hand_and_the_next_by_the_pattern() -> None:
    assert fresh_stdout(SWITCH) == "[False, False, True, True, False, True]"
    assert fresh_stdout(LARGE_FIRST) == "False True"  # past 32 KB: the pattern
