"""Secrets: where the host reads a value, and how every trace of one is removed.

The value of a secret never leaves the broker: the host reads `environ[env]` when it adds the
header, and a `Redactor` replaces the value and its usual encodings with `[redacted:NAME]` in
everything that goes back (response text and headers, failure messages, audit events). The
forms: the value and the header value as sent, each character as itself or escaped, in any
mix: percent-encoded (either hex case, `+` for a space: what `quote` leaves alone varies by
library), JSON (`\\uXXXX`, `\\/` as PHP writes it, `\\"`, `\\\\`) and HTML (`&#N;`, `&#xH;`,
`&amp;` and the other named ones); hex (either case); base64 and base64url, padded or not, at
each of the three byte alignments (so a value inside a larger base64 blob, e.g.
`Basic base64(user:value)`, is found too). Each of these in any case (an echo that upper- or
lower-cases what it repeats, a header case-folded by a proxy): text is matched folded to
ASCII lower case, and the hex and base64 forms of the value lower- and upper-cased are forms
too. Redaction is against echoes (a server repeating a header, an error page quoting the
request): a host a secret is sent to is trusted with it, since it can always encode it in a
way no redactor recognises.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus

from dyntools.capabilities.failures import SECRET, HttpFailure
from dyntools.capabilities.policy import SecretRule

MIN_SECRET_CHARS = 8
MAX_SECRET_CHARS = 4096
MIN_FORM_CHARS = 6
_VALUE = re.compile("[\x21-\x7e]+(?: [\x21-\x7e]+)*")
# Secrets are printable ASCII (_VALUE), and so is every form of one: matching ignores ASCII
# case only, so a match, lower-cased, is a form's key (Unicode folding would let `K`, the
# Kelvin sign, stand for `k`, and match text no form lower-cases to).
_ANY_CASE = re.IGNORECASE | re.ASCII


def secret_value(rule: SecretRule, environ: Mapping[str, str]) -> str:
    """The secret's current value; HttpFailure (kind "secret") when the host has none that
    can be sent safely. The message names the variable, never a value."""
    value = environ.get(rule.env)
    if value is None or value == "":
        raise HttpFailure(f"secret {rule.name} is not configured on the host (environment "
                          f"variable {rule.env} is unset)", kind=SECRET)
    if len(value) < MIN_SECRET_CHARS or len(value) > MAX_SECRET_CHARS:
        raise HttpFailure(f"secret {rule.name} (environment variable {rule.env}) must be "
                          f"{MIN_SECRET_CHARS} to {MAX_SECRET_CHARS} characters long: a "
                          "shorter value cannot be redacted reliably", kind=SECRET)
    if not _VALUE.fullmatch(value):
        raise HttpFailure(f"secret {rule.name} (environment variable {rule.env}) holds "
                          "characters a header value may not (controls, non-ASCII, leading "
                          "or trailing spaces)", kind=SECRET)
    return value


def available_secrets(secrets: Mapping[str, SecretRule],
                      environ: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """(name, value, header value) for every policy secret that has a usable value now."""
    out: list[tuple[str, str, str]] = []
    for name, rule in secrets.items():
        try:
            value = secret_value(rule, environ)
        except HttpFailure:
            continue
        out.append((name, value, rule.header_value(value)))
    return out


def forms(text: str) -> set[str]:
    """The encodings of `text` a server might echo back."""
    raw = text.encode("utf-8")
    found = {text, quote(text, safe=""), quote_plus(text), json.dumps(text)[1:-1],
             raw.hex(), raw.hex().upper()}
    found |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), item)
              for item in list(found)}
    for shift in range(3):
        padded = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        start = -(-8 * shift // 6)  # the first character no prefix byte touches
        end = (8 * (shift + len(raw))) // 6  # the last one no following byte touches
        core = padded[start:end]
        found |= {core, core.replace("+", "-").replace("/", "_")}
        if shift == 0:
            found |= {padded, base64.urlsafe_b64encode(raw).decode("ascii")}
    return {item for item in found if len(item) >= MIN_FORM_CHARS}


_HTML_NAMED = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos"}
_JSON_SHORT = {'"': '\\"', "\\": "\\\\", "/": "\\/"}


def _hex(number: int, digits: int) -> str:
    """`number` in hex as a pattern accepting either case of each letter."""
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d
                   for d in f"{number:0{digits}x}")


def _char(char: str) -> str:
    """A pattern for one character written as itself or in any escape an echo uses."""
    code = ord(char)
    options = [re.escape(char)]
    for byte in char.encode("utf-8"):
        options.append("%" + _hex(byte, 2))  # one %HH a byte (a printable ASCII value)
    if char == " ":
        options.append(r"\+")
    options.append(r"\\[uU]" + _hex(code, 4))
    if char in _JSON_SHORT:
        options.append(re.escape(_JSON_SHORT[char]))
    options.append(f"&#0*{code};")
    options.append("&#[xX]0*" + _hex(code, 1 if code < 16 else 2) + ";")
    if char in _HTML_NAMED:
        options.append(f"&{_HTML_NAMED[char]};")
    return "(?:" + "|".join(options) + ")"


def escaped(text: str) -> str:
    """A pattern (no capturing groups) matching `text` with each character as itself or
    escaped (percent, JSON, HTML), in any mix."""
    return "".join(_char(char) for char in text)


_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}|\\[uU][0-9A-Fa-f]{4}|\\[/\"\\]|&#[0-9]{1,8};|"
                     r"&#[xX][0-9A-Fa-f]{1,6};|&(?:amp|lt|gt|quot|apos);")
_NAMED_CHARS = {f"&{entity};": char for char, entity in _HTML_NAMED.items()}


def _unescape_one(match: re.Match[str]) -> str:
    found = match.group()
    try:
        if found[0] == "%":
            return chr(int(found[1:], 16))
        if found[0] == "\\":
            return chr(int(found[2:], 16)) if len(found) == 6 else found[1]
        if found in _NAMED_CHARS:
            return _NAMED_CHARS[found]
        return chr(int(found[3:-1], 16) if found[2] in "xX" else int(found[2:-1]))
    except (ValueError, OverflowError):
        return found


def unescaped(text: str) -> str:
    """`text` with its percent, JSON and HTML escapes decoded (one pass, no nesting): where
    an escaped secret would show as itself."""
    return _ESCAPE.sub(_unescape_one, text) if ("%" in text or "\\" in text or "&" in text) \
        else text


@functools.lru_cache(maxsize=32)
def _escaped_pattern(texts: tuple[tuple[str, str], ...],
                     exact: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    """Every value and header value escaped, and every exact form, longest first (the
    alternatives at one position are tried in order: a header value before the value
    inside it); one group each, in the order Redactor._groups names them. Cached: each
    session of a call builds a Redactor for the same secrets."""
    alternatives = sorted([(text, escaped(text)) for text, _ in texts]
                          + [(form, re.escape(form)) for form, _ in exact],
                          key=lambda item: len(item[0]), reverse=True)
    return re.compile("|".join(f"({pattern})" for _, pattern in alternatives), _ANY_CASE)


class Redactor:
    """Replaces every form of every known secret, in any ASCII case, with `[redacted:NAME]`.

    The exact forms (hex, base64, the values themselves) are one fast pattern, run on the
    text folded to ASCII lower case (`fold`: same length, so each match is where it was).
    Escaped mixes need a pattern per character, about 30 times slower to scan with: it runs
    only on text whose escapes, decoded, show a value or a header value."""

    def __init__(self, secrets: Iterable[tuple[str, str, str]] = ()) -> None:
        self._folded: dict[str, str] = {}  # exact forms, folded (hex, base64, ...) -> name
        self._texts: dict[str, str] = {}  # values and header values, matched escaped too
        self._exact: re.Pattern[str] | None = None
        self._escaped: re.Pattern[str] | None = None
        self._groups: list[str] = []  # the name of each alternative of _escaped, in order
        for name, value, header in secrets:
            self._learn(name, value, header)
        self._compile()

    def add(self, name: str, value: str, header: str) -> None:
        """Learn a value (a rotated secret read for a later hop)."""
        if value in self._texts:
            return
        self._learn(name, value, header)
        self._compile()

    def _learn(self, name: str, value: str, header: str) -> None:
        for item in folded_forms(value, header):
            self._folded.setdefault(item, name)
        for text in (value, header):
            self._texts.setdefault(text, name)

    def _compile(self) -> None:
        if not self._folded:
            self._exact = self._escaped = None
            return
        self._exact = _exact_pattern(tuple(self._folded))
        self._escaped = None  # built when first needed: most text never needs it

    def _escaped_pattern(self) -> re.Pattern[str]:
        if self._escaped is None:
            self._escaped = _escaped_pattern(tuple(self._texts.items()),
                                             tuple(self._folded.items()))
            self._groups = [name for _, name in sorted(
                [*self._texts.items(), *self._folded.items()],
                key=lambda item: len(item[0]), reverse=True)]
        return self._escaped

    def __bool__(self) -> bool:
        return self._exact is not None

    def __call__(self, text: str) -> str:
        if self._exact is None or not text:
            return text
        plain = unescaped(text)
        if plain is not text and self._shows_a_text(plain):
            pattern = self._escaped_pattern()
            groups = self._groups
            return pattern.sub(
                lambda m: f"[redacted:{groups[(m.lastindex or 1) - 1]}]", text)
        names = self._folded
        pieces: list[str] = []
        end = 0
        for found in self._exact.finditer(fold(text)):
            pieces += (text[end:found.start()], f"[redacted:{names[found.group()]}]")
            end = found.end()
        if not pieces:
            return text
        pieces.append(text[end:])
        return "".join(pieces)

    def _shows_a_text(self, plain: str) -> bool:
        plain = fold(plain)
        spaced = plain.replace("+", " ") if "+" in plain else plain
        return any(fold(text) in plain or fold(text) in spaced for text in self._texts)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(text: str) -> str:
    """`text` with ASCII letters in lower case and nothing else changed (str.lower of other
    text could change its length, e.g. `İ`, and move every match after it)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


@functools.lru_cache(maxsize=64)
def folded_forms(value: str, header: str) -> frozenset[str]:
    """Every form of the value and the header value, and of the value case-folded (an echo
    that lower- or upper-cases before it encodes gives other hex and base64; the header
    value holds the value, so its folded encodings hold these), folded to ASCII lower case.
    Cached: each session of a call learns the same secrets."""
    found: set[str] = set()
    for text in {value, header, fold(value), value.upper()}:
        found.update(fold(item) for item in forms(text))
    return frozenset(found)


@functools.lru_cache(maxsize=64)
def _exact_pattern(folded: tuple[str, ...]) -> re.Pattern[str]:
    """The folded exact forms, longest first, as one case-sensitive pattern (it runs on
    folded text: faster than an IGNORECASE pattern by some 40 times)."""
    return re.compile("|".join(re.escape(item) for item in sorted(folded, key=len,
                                                                      reverse=True)))
