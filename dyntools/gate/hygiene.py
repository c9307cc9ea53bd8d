"""Source hygiene: what the bytes must be before anything parses them.

Runs on the raw bytes first (size, NUL, UTF-8, coding cookie), then on the decoded text
(bidirectional controls, invisible format characters, stray control characters). Each scan
is linear: a search of the bytes, a set of the text's characters, or one regular expression
over the whole text (only for a file one of those patterns is for: a coding cookie, a control
character, a hidden character to locate).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from dyntools.base.hidden_text import hidden_character_class
from dyntools.gate.findings import Finding

# PEP 263: a comment on line 1 or 2 matching this declares the source encoding.
_CODING_COOKIE = rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)"

# Trojan Source (CVE-2021-42574), invisible and private-use characters: one definition for
# the source, the metadata strings and the terminal (dyntools.base.hidden_text).
# The patterns of scans that only some files need are compiled when first used (re keeps them).
_NON_ASCII = "[^\x00-\x7f]"

# C0 and C1 controls except NUL (DT002 has its own code), tab, newline, carriage return and
# form feed (PEP 8 allows ^L); and the Unicode line and paragraph separators, which editors
# show as line breaks where Python sees none.
_CONTROL = "[\x01-\x08\x0b\x0e-\x1f\x7f-\x9f\u2028\u2029]"


class Decoded(NamedTuple):
    text: str | None
    findings: list[Finding]


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    start = text.rfind("\n", 0, index) + 1
    return line, index - start + 1


def _byte_position(data: bytes, index: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, index) + 1
    start = data.rfind(b"\n", 0, index) + 1
    # Columns count characters: decode the valid prefix of the line leniently.
    col = len(data[start:index].decode("utf-8", errors="replace")) + 1
    return line, col


def head_end(data: bytes) -> int:
    """Where the first two lines of `data` end (PEP 263's reach)."""
    end = -1
    for _ in range(2):
        end = data.find(b"\n", end + 1)
        if end == -1:
            return len(data)
    return end


def coding_cookie(data: bytes) -> re.Match[bytes] | None:
    """The coding declaration in the first two lines, if any. Only a head that spells
    "coding" can hold one, and only then is the pattern compiled (re keeps it)."""
    end = head_end(data)
    if b"coding" not in data[:end]:
        return None
    return re.compile(_CODING_COOKIE, re.MULTILINE).search(data, 0, end)


def check_bytes(data: bytes, max_bytes: int) -> Decoded:
    """Validate raw bytes; return the decoded text, or None when parsing must not go on."""
    if len(data) > max_bytes:
        return Decoded(
            None,
            [Finding(1, 1, "DT008", f"file exceeds the size limit of {max_bytes} bytes")],
        )
    if not data.strip():
        return Decoded(None, [Finding(1, 1, "DT012", "the file is empty")])
    findings: list[Finding] = []
    nul = data.find(b"\x00")
    if nul != -1:
        line, col = _byte_position(data, nul)
        findings.append(Finding(line, col, "DT002", "NUL byte in source"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _byte_position(data, exc.start)
        findings.append(
            Finding(line, col, "DT001", f"invalid UTF-8 at byte {exc.start}: {exc.reason}")
        )
        return Decoded(None, findings)
    cookie = coding_cookie(data)
    if cookie:
        line, col = _byte_position(data, cookie.start())
        findings.append(
            Finding(
                line,
                col,
                "DT003",
                f"coding declaration {cookie.group(1).decode('ascii', 'replace')!r}: tool "
                "files are UTF-8 and may not declare an encoding",
            )
        )
    if not text.isascii():
        findings.extend(_scan_unicode(data, text))
    if _has_control(data, text):  # one scan for the usual file, which has none of them
        findings.extend(_scan(text, re.compile(_CONTROL), "DT006", "control character"))
        findings.extend(_layout_tricks(text))
    return Decoded(None if findings else text, findings)


# Every character the control and layout scans look for: C0 but tab and newline (CR and FF
# included), DEL, C1, U+2028/U+2029.
_ANY_CONTROL = "[\x01-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]"
# Every byte but the ASCII ones _ANY_CONTROL names (NUL has its own rule, DT002); in UTF-8,
# bytes below 0x80 are never part of a longer sequence, so what deleting these leaves of a
# file are its ASCII controls.
_NOT_ASCII_CONTROL = bytes([0, 9, 10, *range(0x20, 0x7F), *range(0x80, 0x100)])
_ASCII_BYTES = bytes(range(0x80))
# U+0080-U+009F in UTF-8: 0xC2 and then 0x80-0x9F (0xC2 only ever leads a sequence). With
# 0xC2 as 2, 0x80-0x9F as 1 and every other byte as 0, those pairs are what b"\x02\x01" finds.
_C1_MARKS = bytes(2 if byte == 0xC2 else 1 if 0x80 <= byte <= 0x9F else 0 for byte in range(256))


def _has_control(data: bytes, text: str) -> bool:
    """Whether `text` (the UTF-8 decoding of `data`) holds any of _ANY_CONTROL's characters,
    read from the bytes without that pattern, whose compile (U+2028 takes it past Latin-1)
    was ~0.5 ms of every check: the ASCII controls, U+2028/U+2029 by their three bytes and
    the C1 controls by their two (one translation, only for a file with a 0xC2)."""
    if data.translate(None, _NOT_ASCII_CONTROL):
        return True
    if text.isascii():
        return False
    if b"\xe2\x80\xa8" in data or b"\xe2\x80\xa9" in data:
        return True
    return b"\xc2" in data and b"\x02\x01" in data.translate(_C1_MARKS)
_MAX_PER_KIND = 20
# A carriage return that does not start a CRLF: Python breaks the line there, cat/grep/diff
# do not, so a statement can hide behind a comment.
_LONE_CR = "\r(?!\n)"
# A form feed with code after it on the same line: Python resets the indentation count at a
# form feed, so a statement that looks nested runs at another level. PEP 8's page break (a
# form feed alone on its line) stays allowed.
_FORM_FEED_BEFORE_CODE = "\x0c[ \t\x0c]*[^ \t\x0c\r\n]"


def _layout_tricks(text: str) -> list[Finding]:
    findings = _scan(text, re.compile(_LONE_CR), "DT006", "carriage return without a newline")
    for match in re.finditer(_FORM_FEED_BEFORE_CODE, text):
        if len(findings) >= _MAX_PER_KIND:
            break
        line, col = _position(text, match.start())
        findings.append(
            Finding(line, col, "DT006", "form feed before code on the same line (it resets "
                    "Python's indentation count, so the code runs at another level than shown)")
        )
    return findings


_SOURCE_KINDS = frozenset({"bidi", "invisible", "private-use"})


def _scan_unicode(data: bytes, text: str) -> list[Finding]:
    # Each distinct character once: most files hold a few kinds of accented letters many
    # times, and only a hidden one needs the positions below. Without its ASCII bytes, the
    # UTF-8 of a file is the UTF-8 of its other characters, one after the other.
    if not any(hidden_character_class(ch) in _SOURCE_KINDS
               for ch in set(data.translate(None, _ASCII_BYTES).decode("utf-8"))):
        return []
    bidi: list[Finding] = []
    invisible: list[Finding] = []
    private: list[Finding] = []
    for match in re.finditer(_NON_ASCII, text):
        ch = match.group()
        kind = hidden_character_class(ch)
        if kind == "bidi":
            target, code, what = bidi, "DT004", "bidirectional control character"
        elif kind == "invisible":
            target, code, what = invisible, "DT005", "invisible format character"
        elif kind == "private-use":
            target, code, what = private, "DT013", "private-use or non-character code point"
        else:
            continue
        if len(target) <= _MAX_PER_KIND:
            line, col = _position(text, match.start())
            if len(target) == _MAX_PER_KIND:
                target.append(Finding(line, col, code, f"more {what}s not listed"))
            else:
                import unicodedata  # only a finding names its character

                name = unicodedata.name(ch, "unnamed")
                target.append(Finding(line, col, code, f"{what} U+{ord(ch):04X} {name}"))
    return bidi + invisible + private


def _scan(text: str, pattern: re.Pattern[str], code: str, what: str) -> list[Finding]:
    findings: list[Finding] = []
    for match in pattern.finditer(text):
        if len(findings) == _MAX_PER_KIND:
            findings.append(
                Finding(findings[-1].line, findings[-1].col, code, f"more {what}s not listed")
            )
            break
        ch = match.group()
        line, col = _position(text, match.start())
        import unicodedata

        name = unicodedata.name(ch, f"U+{ord(ch):04X}")
        findings.append(Finding(line, col, code, f"{what} U+{ord(ch):04X} {name}"))
    return findings
