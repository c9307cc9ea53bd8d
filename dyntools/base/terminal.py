"""Text that reached us from a tool or a file, made safe to print on a terminal.

Tool output, exception messages, recorded reasons, gate findings (which quote the file's
strings) and jsonschema messages (which quote params and schema values) are
attacker-controlled: escape sequences could rewrite the screen, retitle the window or write
the clipboard (OSC 52), bidi overrides could reorder what an operator reads, and invisible or
private-use characters (TAG characters among them) could hide text from them. Every such
character except newline and tab is printed as its Python escape (`\\x1b`, `\\u202e`,
`\\U000e0041`), so what is printed is what the data holds.
"""

from __future__ import annotations

import re

from dyntools.base.hidden_text import NOT_PLAIN, hidden_character_class, is_plain

# Printable ASCII, newline and tab print as they are; anything else (NOT_PLAIN) gets a
# closer look.


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    if hidden_character_class(ch) is None:
        return ch
    return ch.encode("unicode_escape").decode("ascii")


def terminal_safe(text: object) -> str:
    """Tool-controlled text (its output, its exception message) made safe for a terminal."""
    value = str(text)
    if is_plain(value):
        return value
    return re.sub(NOT_PLAIN, _escape, value)
