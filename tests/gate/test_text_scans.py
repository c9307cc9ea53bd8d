"""The text scans that stand before a pattern (`is_plain`, the metadata pre-check, the
unicode pre-scan of hygiene) answer as their patterns would, on any text: each skips work for
the usual text and must never skip a character the pattern would find."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dyntools.base.hidden_text import hidden_character_class, is_plain
from dyntools.base.terminal import terminal_safe
from dyntools.gate import hygiene, metatext

SETTINGS = settings(max_examples=500, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

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
