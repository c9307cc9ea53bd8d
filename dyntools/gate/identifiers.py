"""ASCII identifiers (DT007): non-ASCII text outside string literals and comments.

Identifiers are NFKC-normalised by the parser, so the tree shows `eval` where the source spells
it in fullwidth letters: the check reads the source, not the tree. Tokenizing a file in pure
Python costs about twice `ast.parse`, and most files with non-ASCII text hold it only in
strings and comments. So a skip first passes over every comment, every string literal and all
other ASCII text; only when it stops at a character that is not inside a string or a comment
(an identifier, since the file parsed) does the tokenizer read the file and report each word
exactly as before.

The skip is the regular expression `_SKIP`. A process's first such file is skipped by hand
instead (`_skip_end`, which tests hold to the pattern's answer on any text), so that a
`dyntools check FILE` imports no `re` (docs/gate.md): it jumps from one quote, `#`,
backslash or non-ASCII byte to the next with `bytes.find`, in time linear in a file that
parsed (where every string it opens closes).

On Python 3.12 and later an f-string may nest the quotes it is written with (PEP 701), so
where the skip would have to guess where such a string ends, it does not skip f-strings at
all: it stops at them and the tokenizer decides.
"""

from __future__ import annotations

import io
import sys
from typing import TYPE_CHECKING

from dyntools.gate.findings import Finding

if TYPE_CHECKING:
    from typing import Any

_SINGLE = r"""'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'"""
_DOUBLE = r'''"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'''
_TRIPLE_SINGLE = r"""'''[^'\\]*+(?:(?:\\.|'(?!''))[^'\\]*+)*+'''"""
_TRIPLE_DOUBLE = r'''"""[^"\\]*+(?:(?:\\.|"(?!""))[^"\\]*+)*+"""'''
# Before a quote: not an f-string prefix (f, rf, fr in any case), on Pythons whose f-strings
# may nest their own quotes. An identifier that ends in f before a string (`if"a"in x`) only
# stops the skip, which is the safe direction.
_FSTRINGS_NEST = sys.version_info >= (3, 12)
_NOT_FSTRING = r"(?<![fF])(?<![fF][rR])(?<![rR][fF])" if _FSTRINGS_NEST else ""
# What the skip passes over, as a pattern (re.DOTALL): `_skip_end` is its match's end.
_SKIP = (
    r"(?:[\x00-\x21\x24-\x26\x28-\x7f]++"  # ASCII other than the quotes and '#'
    r"|\#[^\n]*+"
    rf"|{_NOT_FSTRING}(?:{_TRIPLE_SINGLE}|{_TRIPLE_DOUBLE}|{_SINGLE}|{_DOUBLE})"
    r")*+"
)

_QUOTE, _DOUBLE_QUOTE, _HASH, _BACKSLASH, _NEWLINE, _NON_ASCII = 0x27, 0x22, 0x23, 0x5C, 0x0A, 0x80
# Every byte of a non-ASCII character becomes 0x80, all ASCII stays as it is.
_MARK_NON_ASCII = bytes(range(0x80)) + b"\x80" * 0x80


# The first file is skipped by hand (~0.4 ms for 6 KB) rather than by the pattern, whose
# compile is ~0.5 ms and `re`'s import ~2.5 ms more: what one `dyntools check FILE` pays.
# From the second file on, the pattern is compiled once: its matcher is ~14x faster a file.
# So is a file past 32 KB, where the hand skip would cost more than loading the pattern
# (~120 ms for 240 KB of short strings, ~0.5x its parse, against ~4 ms).
_BY_HAND_FILES = 1
_BY_HAND_MAX_CHARS = 32768
_SCANNED: list[int] = [0]
_PATTERN: list[Any] = []


def may_hold_non_ascii_identifier(text: str) -> bool:
    """False only when every non-ASCII character of `text` (a file `ast.parse` accepted) is
    inside a string literal or a comment."""
    if text.isascii():
        return False
    if _PATTERN:
        match = _PATTERN[0].match(text)
        return match is None or match.end() != len(text)
    _SCANNED[0] += 1
    if _SCANNED[0] > _BY_HAND_FILES or len(text) > _BY_HAND_MAX_CHARS:
        import re

        _PATTERN.append(re.compile(_SKIP, re.DOTALL))
        return may_hold_non_ascii_identifier(text)
    data = text.encode("utf-8", "surrogatepass").translate(_MARK_NON_ASCII)
    return _skip_end(data) != len(data)


class _Next:
    """Where each byte next occurs at or after a position (len(data) for never). The last
    answer for each byte is kept with the position it was asked from: it answers any
    position between the two, so the scan, whose positions mostly grow, searches each stretch
    of the file about once per byte."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.end = len(data)
        self.found = [-1] * 256
        self.since = [0] * 256

    def __call__(self, byte: int, position: int) -> int:
        found = self.found[byte]
        if not self.since[byte] <= position <= found:
            found = self.data.find(byte, position)
            if found < 0:
                found = self.end
            self.found[byte], self.since[byte] = found, position
        return found


def _skip_end(data: bytes) -> int:
    """Where `_SKIP` (re.DOTALL) stops on the text whose bytes, non-ASCII ones marked, are
    `data`: every ASCII run, comment and string literal passed over."""
    end = len(data)
    after = _Next(data)
    position = 0
    while position < end:
        byte = data[position]
        if byte == _HASH:  # a comment: up to the newline
            position = after(_NEWLINE, position)
        elif byte in (_QUOTE, _DOUBLE_QUOTE):
            if _FSTRINGS_NEST and _after_fstring_prefix(data, position):
                return position
            closed = _string_end(data, position, after)
            if closed < 0:
                return position
            position = closed
        elif byte == _NON_ASCII:
            return position
        else:  # an ASCII run
            position = min(after(_QUOTE, position), after(_DOUBLE_QUOTE, position),
                           after(_HASH, position), after(_NON_ASCII, position))
    return position


def _after_fstring_prefix(data: bytes, position: int) -> bool:
    return data[position - 1:position] in (b"f", b"F") or (
        position >= 2 and data[position - 2:position].lower() == b"fr")


def _string_end(data: bytes, start: int, after: _Next) -> int:
    """Where the string literal opened at `start` ends, or -1 when none does (as `_SKIP`'s
    four alternatives, tried in its order: a triple-quoted string, else a one-line one)."""
    quote = data[start]
    end = len(data)
    if data[start + 1:start + 3] == bytes((quote, quote)):
        at = start + 3
        while True:
            close, escape = after(quote, at), after(_BACKSLASH, at)
            if escape < close:
                if escape + 1 >= end:
                    break
                at = escape + 2
            elif close >= end:
                break
            elif data[close + 1:close + 3] == bytes((quote, quote)):
                return close + 3
            else:
                at = close + 1
        return start + 2  # unterminated: as _SKIP, the empty string of its first two quotes
    at = start + 1
    while True:
        close, escape, newline = after(quote, at), after(_BACKSLASH, at), after(_NEWLINE, at)
        first = min(close, escape, newline)
        if first >= end or first == newline:
            return -1
        if first == close:
            return close + 1
        if escape + 1 >= end:
            return -1
        at = escape + 2


def non_ascii_identifiers(text: str) -> list[Finding]:
    if not may_hold_non_ascii_identifier(text):
        return []
    return tokenized_non_ascii_identifiers(text)


def tokenized_non_ascii_identifiers(text: str) -> list[Finding]:
    """Every token counts, not only NAME: the tokenizer splits a name at connector
    punctuation such as U+203F or U+FF3F, which the parser then joins again."""
    import tokenize  # only for the few files that need it: ~1 ms of start-up otherwise

    # Tokens whose text may legitimately hold any Unicode: string literals and comments.
    text_tokens = frozenset(getattr(tokenize, name)
                            for name in ("STRING", "COMMENT", "FSTRING_MIDDLE")
                            if hasattr(tokenize, name))
    # Pieces the tokenizer may split one identifier into (at connector punctuation).
    word_tokens = frozenset({tokenize.NAME, tokenize.ERRORTOKEN, tokenize.NUMBER})
    findings: list[Finding] = []
    words: list[tuple[tuple[int, int], tuple[int, int], str]] = []  # start, end, text
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in text_tokens or not token.string.strip():
                continue
            if words and words[-1][1] == token.start and token.type in word_tokens:
                start, _, joined = words[-1]
                words[-1] = (start, token.end, joined + token.string)
            else:
                words.append((token.start, token.end, token.string))
    except (tokenize.TokenError, SyntaxError):
        pass  # the parser already accepted the file; a tokenizer quirk is not a finding
    for (line, col), _, word in words:
        if not word.isascii():
            findings.append(
                Finding(
                    line,
                    col + 1,
                    "DT007",
                    f"identifier {word!r} is not ASCII (Python reads it as {_nfkc(word)!r})",
                )
            )
    return findings


def _nfkc(name: str) -> str:
    import unicodedata  # only a file with a non-ASCII identifier gets here

    return unicodedata.normalize("NFKC", name)
