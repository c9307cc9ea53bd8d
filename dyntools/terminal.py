"""Text that reached us from a tool or a file, made safe to print on a terminal.

Tool output, exception messages and recorded reasons are attacker-controlled: escape
sequences could rewrite the screen, retitle the window or write the clipboard (OSC 52), and
bidi overrides could reorder what an operator reads.
"""

from __future__ import annotations

import re

# C0/C1 controls (ESC starts ANSI/OSC sequences that rewrite the screen, retitle the window or
# write the clipboard) and bidi/invisible format characters, except newline and tab.
_TERMINAL_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)


def terminal_safe(text: object) -> str:
    """Tool-controlled text (its output, its exception message) made safe for a terminal."""
    return _TERMINAL_UNSAFE.sub(
        lambda match: match.group().encode("unicode_escape").decode("ascii"), str(text))
