"""Secrets: where the host reads a value, and how every trace of one is removed.

The value of a secret never leaves the broker: the host reads `environ[env]` when it adds the
header, and a `Redactor` replaces the value and its usual encodings with `[redacted:NAME]` in
everything that goes back (response text and headers, failure messages, audit events). The
forms: the value and the header value as sent; percent-encoded (upper and lower hex, `+` for
spaces); JSON-escaped; hex (either case); base64 and base64url, padded or not, at each of the
three byte alignments (so a value inside a larger base64 blob, e.g. `Basic base64(user:value)`,
is found too). Redaction is against echoes (a server repeating a header, an error page quoting the
request): a host a secret is sent to is trusted with it, since it can always encode it in a way
no redactor recognises.
"""

from __future__ import annotations

import base64
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


class Redactor:
    """Replaces every form of every known secret with `[redacted:NAME]`."""

    def __init__(self, secrets: Iterable[tuple[str, str, str]] = ()) -> None:
        self._names: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None
        for name, value, header in secrets:
            self._learn(name, value, header)
        self._compile()

    def add(self, name: str, value: str, header: str) -> None:
        """Learn a value (a rotated secret read for a later hop)."""
        if value in self._names:
            return
        self._learn(name, value, header)
        self._compile()

    def _learn(self, name: str, value: str, header: str) -> None:
        for item in forms(value) | forms(header):
            self._names.setdefault(item, name)

    def _compile(self) -> None:
        if not self._names:
            self._pattern = None
            return
        ordered = sorted(self._names, key=len, reverse=True)  # longest form first
        self._pattern = re.compile("|".join(re.escape(item) for item in ordered))

    def __bool__(self) -> bool:
        return self._pattern is not None

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(lambda m: f"[redacted:{self._names[m.group()]}]", text)
