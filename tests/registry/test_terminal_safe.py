"""Recorded reasons can hold tool output: printed to a terminal, they are escaped."""

from __future__ import annotations

from dyntools.base.terminal import terminal_safe


def test_escape_sequences_and_bidi_are_shown_not_obeyed() -> None:
    hostile = "ok\x1b]52;c;ZXZpbA==\x07 \u202eevil\n\tnext"
    safe = terminal_safe(hostile)
    assert "\x1b" not in safe and "\x07" not in safe and "\u202e" not in safe
    assert "\\x1b]52" in safe and "\\u202e" in safe
    assert safe.endswith("\n\tnext")  # newlines and tabs stay readable
