"""Issue 9, finding 5: what a model reads is what a reviewer reads. Every string of NAME,
DESCRIPTION, PARAMS (keys, descriptions, titles, enum values, patterns, defaults...) and
EXAMPLES is checked as evaluated, so a pure-ASCII file that spells a hidden character as an
escape is refused at the literal that holds it, one class per code (DT510-DT513); the same
characters written raw are refused by source hygiene (DT004, DT005, DT006, DT013)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dyntools.base.hidden_text import hidden_character_class
from dyntools.gate import check_source

TEMPLATE = '''"""A tool."""
NAME = "sample_tool"
DESCRIPTION = "@DESC@"
PARAMS = {"type": "object",
          "properties": {"@KEY@": {"type": "string", "description": "@PDESC@", "title": "@TITLE@",
                                 "enum": ["@ENUM@", "b"], "pattern": "@PATTERN@"}}}
EXAMPLES = [{"params": {"@KEY@": "@ENUM@"}, "result": {"out": "@RESULT@"}}]


def run(params):
    return {"out": "ok"}
'''
CLEAN = {"DESC": "Does a thing.", "KEY": "text", "PDESC": "the text", "TITLE": "Text",
         "ENUM": "a", "PATTERN": "^[a-z]+$", "RESULT": "ok"}
LINES = {"DESC": 3, "KEY": 5, "PDESC": 5, "TITLE": 5, "ENUM": 6, "PATTERN": 6, "RESULT": 7}

# (code, class name, escape as written in the file, the character it spells)
CLASSES = [
    ("DT510", "bidi", "\\u202e", "\u202e"),          # RIGHT-TO-LEFT OVERRIDE
    ("DT510", "bidi", "\\u2067", "\u2067"),          # RIGHT-TO-LEFT ISOLATE
    ("DT511", "invisible", "\\U000e0041", "\U000e0041"),  # TAG LATIN CAPITAL LETTER A
    ("DT511", "invisible", "\\U000e0001", "\U000e0001"),  # LANGUAGE TAG
    ("DT511", "invisible", "\\u200b", "\u200b"),     # ZERO WIDTH SPACE
    ("DT511", "invisible", "\\u00ad", "\u00ad"),     # SOFT HYPHEN
    ("DT511", "invisible", "\\u3164", "\u3164"),     # HANGUL FILLER
    ("DT511", "invisible", "\\ufe0f", "\ufe0f"),     # VARIATION SELECTOR-16
    ("DT511", "invisible", "\\ufeff", "\ufeff"),     # BOM
    ("DT512", "control", "\\x1b[2J", "\x1b"),        # ESC (CSI)
    ("DT512", "control", "\\x9b", "\x9b"),           # C1 CSI
    ("DT512", "control", "\\u2028", "\u2028"),       # LINE SEPARATOR
    ("DT512", "control", "\\u2029", "\u2029"),       # PARAGRAPH SEPARATOR
    ("DT512", "control", "\\r", "\r"),
    ("DT513", "private-use", "\\ue000", "\ue000"),
    ("DT513", "private-use", "\\U000f0000", "\U000f0000"),
    ("DT513", "private-use", "\\ufdd0", "\ufdd0"),   # a non-character
]


# Control characters EXAMPLES hold as text (issue 27: an example of a line-ending normaliser).
EXAMPLES_TEXT = "\r"


def source(**slots: str) -> str:
    text = TEMPLATE
    for slot, value in {**CLEAN, **slots}.items():
        text = text.replace(f"@{slot}@", value)
    return text


def test_the_clean_template_is_accepted() -> None:
    assert check_source(source()).accepted


@pytest.mark.parametrize(("code", "kind", "escape", "char"), CLASSES,
                         ids=[f"{c[0]}-{c[2]}" for c in CLASSES])
@pytest.mark.parametrize("slot", sorted(LINES))
def test_escaped_hidden_character_is_refused_at_its_literal(
        code: str, kind: str, escape: str, char: str, slot: str) -> None:
    assert hidden_character_class(char) == kind
    if slot == "PATTERN" and kind == "control":
        escape = escape.replace("[", "")  # keep the pattern a valid regex
    bad = source(**{slot: f"{CLEAN[slot]}{escape}"})
    assert bad.isascii()
    report = check_source(bad)
    hits = [f for f in report.findings if f.code == code]
    lines = {LINES[slot]} | ({7} if slot in ("KEY", "ENUM") else set())
    if char in EXAMPLES_TEXT:
        lines.discard(7)  # EXAMPLES (line 7) hold a carriage return as text
        if not lines:
            assert report.accepted, report.findings
            return
    assert hits, report.findings
    assert {f.line for f in hits} == lines
    line = bad.splitlines()[LINES[slot] - 1]
    assert any(line[f.col - 1] == '"' and escape in line[f.col - 1:] for f in hits)
    assert f"U+{ord(char):04X}" in hits[0].message


@pytest.mark.parametrize(("code", "kind", "escape", "char"), CLASSES,
                         ids=[f"{c[0]}-{c[2]}" for c in CLASSES])
def test_the_same_character_written_raw_is_refused_by_source_hygiene(
        code: str, kind: str, escape: str, char: str) -> None:
    raw = source(DESC=f"Does{char} a thing.")
    codes = check_source(raw).codes
    assert codes & {"DT004", "DT005", "DT006", "DT013"}, codes


def test_name_is_checked_too() -> None:
    report = check_source(source().replace('NAME = "sample_tool"', 'NAME = "sample\\u200btool"'))
    assert {"DT511", "DT504"} <= report.codes


@pytest.mark.parametrize("text", ["Crème brûlée, à la carte", "日本語の説明", "emoji 😀 ok",
                                  "tab\tand\nnewline", "math ∑ ≤ ≥ → ×", "Ελληνικά"])
def test_ordinary_unicode_text_is_accepted(text: str) -> None:
    escaped = text.encode("unicode_escape").decode("ascii").replace('"', '\\"')
    assert check_source(source(DESC=escaped, PDESC=escaped, RESULT=escaped)).accepted


@settings(max_examples=300, deadline=None)
@given(st.characters(codec="utf-8"))
def test_any_character_is_refused_in_metadata_exactly_when_it_is_hidden(char: str) -> None:
    kind = hidden_character_class(char)
    if char in "\t\n":
        kind = None
    escaped = f"\\U{ord(char):08x}"
    report = check_source(source(DESC=f"Does a thing{escaped}."))
    metadata = report.codes & {"DT510", "DT511", "DT512", "DT513"}
    if kind is None:
        assert report.accepted, report.findings
    else:
        assert metadata, (hex(ord(char)), report.findings)
