"""The scans a check runs on every file without compiling a pattern answer as the patterns
they stand for: the tool name rule, the control-character pre-scan and the coding-cookie
search (dyntools/gate/hygiene.py, dyntools/base/toolname.py)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from dyntools.base.toolname import MAX_TOOL_NAME, tool_name_problem
from dyntools.gate.hygiene import _ANY_CONTROL, _CODING_COOKIE, _has_control, check_bytes

SNAKE_ISH = st.text(alphabet="abcxyz019_-. A\n\u00e9\u0131K", max_size=12)


@given(st.one_of(SNAKE_ISH, st.text(max_size=12)))
def test_the_tool_name_rule_is_the_snake_case_pattern(name: str) -> None:
    problem = tool_name_problem(name)
    refused_as_not_snake_case = problem is not None and "snake_case" in problem
    if name and len(name) <= MAX_TOOL_NAME:
        snake_case = name.isascii() and re.fullmatch(r"[a-z][a-z0-9_]*", name) is not None
        assert refused_as_not_snake_case == (not snake_case)


CONTROL_ISH = st.text(alphabet=st.sampled_from(
    ["a", " ", "\t", "\n", "\r", "\x0c", "\x0b", "\x00", "\x01", "\x1f", "\x7f", "\x80",
     "\x9f", "\xa0", "\u2028", "\u2029", "\u00e9", "\U0001f600"]), max_size=20)


@given(st.one_of(CONTROL_ISH, st.text(max_size=20)))
def test_the_control_pre_scan_is_the_pattern(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    assert _has_control(data, text) == (re.search(_ANY_CONTROL, text) is not None)


HEADS = st.lists(st.sampled_from(
    ["# -*- coding: latin-1 -*-", "#coding=utf-7", "# vim: set fileencoding=rot13 :",
     "  # codin: x", "# coding", "x = 1", "", "\x0c# coding: ascii", "'''coding: x'''"]),
    max_size=4)


@given(HEADS)
def test_the_coding_cookie_is_found_where_the_pattern_finds_it(lines: list[str]) -> None:
    data = ("\n".join(lines) + "\nNAME = 'x'\n").encode()
    head = b"\n".join(data.split(b"\n")[:2])  # the first two lines, as PEP 263 reads
    expected = re.compile(_CODING_COOKIE, re.MULTILINE).search(head) is not None
    codes = {f.code for f in check_bytes(data, 1 << 20).findings}
    assert ("DT003" in codes) == expected
