"""ASCII identifiers (DT007): non-ASCII text outside string literals and comments.

Identifiers are NFKC-normalised by the parser, so the tree shows `eval` where the source spells
it in fullwidth letters: the check reads the source, not the tree. Tokenizing a file in pure
Python costs about twice `ast.parse`, and most files with non-ASCII text hold it only in
strings and comments. So one regular expression (`_SKIP`) first skips every comment, every
string literal and all other ASCII text (in C, possessively, linear in the file); only when
it stops at a character that is not inside a string or a comment (an identifier, since the
file parsed) does the tokenizer read the file and report each word exactly as before.

On Python 3.12 and later an f-string may nest the quotes it is written with (PEP 701), so
where the skip would have to guess where such a string ends, it does not skip f-strings at
all: it stops at them and the tokenizer decides.
"""

from __future__ import annotations

import io
import re
import sys
from functools import cache

from dyntools.gate.findings import Finding

_SINGLE = r"""'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'"""
_DOUBLE = r'''"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'''
_TRIPLE_SINGLE = r"""'''[^'\\]*+(?:(?:\\.|'(?!''))[^'\\]*+)*+'''"""
_TRIPLE_DOUBLE = r'''"""[^"\\]*+(?:(?:\\.|"(?!""))[^"\\]*+)*+"""'''
# Before a quote: not an f-string prefix (f, rf, fr in any case), on Pythons whose f-strings
# may nest their own quotes. An identifier that ends in f before a string (`if"a"in x`) only
# stops the skip, which is the safe direction.
_FSTRINGS_NEST = sys.version_info >= (3, 12)
_NOT_FSTRING = r"(?<![fF])(?<![fF][rR])(?<![rR][fF])" if _FSTRINGS_NEST else ""
# What the skip passes over (re.DOTALL).
_SKIP = (
    r"(?:[\x00-\x21\x24-\x26\x28-\x7f]++"  # ASCII other than the quotes and '#'
    r"|\#[^\n]*+"
    rf"|{_NOT_FSTRING}(?:{_TRIPLE_SINGLE}|{_TRIPLE_DOUBLE}|{_SINGLE}|{_DOUBLE})"
    r")*+"
)


@cache
def _skip_pattern() -> re.Pattern[str]:
    """`_SKIP`, compiled once, for the first file with non-ASCII text."""
    return re.compile(_SKIP, re.DOTALL)


def may_hold_non_ascii_identifier(text: str) -> bool:
    """False only when every non-ASCII character of `text` (a file `ast.parse` accepted) is
    inside a string literal or a comment."""
    if text.isascii():
        return False
    match = _skip_pattern().match(text)
    return match is None or match.end() != len(text)


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
