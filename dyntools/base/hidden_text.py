"""The classes of characters that make what a reader sees differ from what a program gets.

One definition shared by the gate's source hygiene (the file's characters), its metadata
check (the evaluated strings of NAME, DESCRIPTION, PARAMS and EXAMPLES) and every terminal
print of tool-controlled text (`dyntools.base.terminal.terminal_safe`):

- bidi: embeddings, overrides, isolates and marks (Trojan Source, CVE-2021-42574);
- invisible: every Unicode format character (category Cf: zero-width characters, the BOM,
  the soft hyphen, the TAG block U+E0000-U+E007F) and the default-ignorable code points
  that are not Cf (Hangul fillers, variation selectors, the combining grapheme joiner,
  Mongolian selectors, the Braille blank);
- control: C0 and C1 controls and DEL (ESC starts terminal escape sequences), and the
  Unicode line and paragraph separators U+2028/U+2029;
- private-use: private-use code points (category Co) and Unicode non-characters, which have
  no agreed glyph, so each font or terminal shows them differently (or not at all).

Tab and newline are ordinary text everywhere; each caller decides about the rest of C0.
"""

from __future__ import annotations

BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
INVISIBLE_EXTRA = frozenset(
    "\u115f\u1160\u3164\uffa0\u034f\u180b\u180c\u180d\u180e\u2800"
    + "".join(chr(cp) for cp in range(0xFE00, 0xFE10))
    + "".join(chr(cp) for cp in range(0xE0100, 0xE01F0))
)
SEPARATORS = frozenset("\u2028\u2029")


# What every caller looks at more closely: anything but printable ASCII, tab and newline.
NOT_PLAIN = "[^\t\n\x20-\x7e]"


def is_plain(text: str) -> bool:
    """Only printable ASCII, tab and newline: nothing in `text` any caller escapes or flags
    (NOT_PLAIN finds nothing), told without a regular expression."""
    return text.isascii() and (text.isprintable()
                               or text.replace("\t", "").replace("\n", "").isprintable())


def is_noncharacter(cp: int) -> bool:
    return 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE


def hidden_character_class(ch: str) -> str | None:
    """"bidi", "invisible", "control" or "private-use" for a character a reader cannot see
    as it is (tab and newline are "control" too: callers that allow them skip them), or
    None for ordinary text."""
    cp = ord(ch)
    if cp < 0x20 or 0x7F <= cp <= 0x9F or ch in SEPARATORS:
        return "control"
    if cp < 0x7F:
        return None
    if ch in BIDI:
        return "bidi"
    import unicodedata  # loaded by the first non-ASCII character: ASCII text never needs it

    category = unicodedata.category(ch)
    if category == "Cf" or ch in INVISIBLE_EXTRA:
        return "invisible"
    if category == "Co" or is_noncharacter(cp):
        return "private-use"
    return None
