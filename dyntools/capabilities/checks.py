"""The checks a request passes before any I/O, shared by the broker and the replay.

    shaped = shape_request(request, policy)        # the frame's shape, sizes, characters
    target = check_target(shaped.url, declared, policy)   # scheme, host form, declaration

One URL parser (httpx.URL) reads the URL for the checks and for sending: the host compared
with the declaration is the host the connection goes to. A host must be a DNS name of plain
labels or a canonical address (the declaration grammar, `parse_host`), so the numeric forms
some resolvers accept (2130706433, 0x7f.1, 127.1, 0177.0.0.1) are refused here, before the
resolved address is checked as well. Every refusal is a CapabilityViolation with a stable
`details["code"]`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from dyntools.capabilities.failures import violation
from dyntools.capabilities.policy import HOST_HEADERS, CapabilityPolicy
from dyntools.gate.capabilities import DEFAULT_PORTS, Capabilities, DeclarationError, parse_host

MAX_URL_CHARS = 8192
MAX_PARAMS = 64
MAX_HEADERS = 32
MAX_HEADER_VALUE_CHARS = 8192
MAX_HEADER_BYTES = 32 * 1024
MAX_BODY_BYTES = 256 * 1024

_REQUEST_KEYS = frozenset({"method", "url", "params", "headers", "json"})
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}")
# C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_HEADER_VALUE = re.compile("[\x20-\x7e]*")

# Stable violation codes (docs/capabilities.md lists them with what each means; the two a
# request meets first, no policy and too many requests, are policy.py's).
MALFORMED = "http.malformed_request"
CONTROL = "http.control_character"
BAD_HEADER = "http.bad_header"
HOST_HEADER = "http.host_header"
TOO_LARGE_REQUEST = "http.request_too_large"
BAD_URL = "http.bad_url"
SCHEME = "http.scheme"
USERINFO = "http.userinfo"
BAD_HOST = "http.bad_host"
UNDECLARED = "http.undeclared_host"
NOT_IN_POLICY = "http.host_not_in_policy"
PRIVATE = "http.private_address"


@dataclass(frozen=True, slots=True)
class Shaped:
    """A request frame that passed the shape checks. `url` has the params merged in."""

    method: str
    url: httpx.URL
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    json: Any = None
    has_json: bool = False


@dataclass(frozen=True, slots=True)
class Target:
    """Where one hop goes: the URL rebuilt around the canonical host."""

    url: httpx.URL
    scheme: str
    host: str
    port: int

    def describe(self) -> str:
        """scheme://host:port (never the path or the query: they may carry data)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def shape_request(request: object, policy: CapabilityPolicy) -> Shaped:
    """The frame's shape: keys, types, sizes, control characters, header names."""
    if not isinstance(request, Mapping):
        raise violation(MALFORMED, "a host request must be a dict with method and url")
    unknown = [str(key)[:40] for key in request if key not in _REQUEST_KEYS]
    if unknown:
        raise violation(MALFORMED, f"a host request has unknown key(s) {', '.join(unknown)}")
    method = request.get("method")
    if method not in ("GET", "POST"):
        raise violation(MALFORMED, "a host request's method must be GET or POST")
    url_text = request.get("url")
    if not isinstance(url_text, str):
        raise violation(MALFORMED, f"the url must be a string, got {type(url_text).__name__}")
    if len(url_text) > MAX_URL_CHARS:
        raise violation(TOO_LARGE_REQUEST, f"the url is longer than {MAX_URL_CHARS} characters")
    no_control(url_text, "the url")
    params = _string_map(request.get("params"), "params", MAX_PARAMS)
    for key, value in params:
        no_control(key, "a params name")
        no_control(value, f"params[{key[:40]!r}]")
    headers = _headers(request.get("headers"), policy)
    has_json = "json" in request
    body: bytes | None = None
    document = request.get("json")
    if method == "GET" and has_json:
        raise violation(MALFORMED, "a GET request has no json body")
    if method == "POST":
        if not has_json:
            raise violation(MALFORMED, "a POST request needs a json body")
        body = _encode_json(document)
    try:
        url = httpx.URL(url_text)
        if params:
            url = url.copy_merge_params(dict(params))
    except (httpx.InvalidURL, ValueError, TypeError, UnicodeError) as exc:
        raise violation(BAD_URL, f"the url {url_text[:200]!r} is not a valid URL: "
                                 f"{str(exc)[:200]}") from None
    if len(str(url)) > MAX_URL_CHARS:
        raise violation(TOO_LARGE_REQUEST, f"the url with its params is longer than "
                                           f"{MAX_URL_CHARS} characters")
    return Shaped(method, url, headers, body, document if has_json else None, has_json)


def check_target(url: httpx.URL, declared: Capabilities,
                 policy: CapabilityPolicy) -> Target:
    """Scheme, userinfo, host form, port, the tool's declaration, the operator's policy (when
    one is configured: a replay without one checks the declaration only)."""
    scheme = url.scheme
    shown = _shown(url)
    if scheme not in DEFAULT_PORTS:
        raise violation(SCHEME, f"{shown}: only http and https URLs may be requested, "
                                f"not {scheme[:20]!r}")
    if url.userinfo:
        raise violation(USERINFO, f"{shown}: a URL may not carry userinfo ('user@'); the "
                                  "host adds credentials itself (secrets)")
    try:
        raw = url.raw_host.decode("ascii")
    except UnicodeDecodeError:
        raise violation(BAD_HOST, f"{shown}: the host is not ASCII") from None
    if not raw:
        raise violation(BAD_HOST, f"{shown}: the URL has no host")
    try:
        rule = parse_host(f"[{raw}]" if ":" in raw else raw)
    except DeclarationError as exc:
        raise violation(BAD_HOST, f"{shown}: {exc.message}", host=raw[:253]) from None
    host = rule.host
    port = url.port if url.port is not None else DEFAULT_PORTS[scheme]
    if not 0 < port < 65536:
        raise violation(BAD_URL, f"{shown}: port {port} is out of range", host=host)
    if host != raw:
        url = url.copy_with(host=host)
    target = Target(url, scheme, host, port)
    if not declared.allows_http(host, port, scheme):
        raise violation(UNDECLARED, f"{target.describe()} is not in the tool's CAPABILITIES "
                                    "http declaration", host=host, port=port)
    if policy.configured and not policy.allows_http(host, port, scheme):
        raise violation(NOT_IN_POLICY, f"{target.describe()} is not in the operator's "
                                       "http.allow", host=host, port=port)
    return target


def _shown(url: httpx.URL) -> str:
    # scheme://host only: the path and query may carry data the tool computed.
    try:
        host = url.raw_host.decode("ascii", "replace")
    except AttributeError:
        host = ""
    return repr(f"{url.scheme[:20]}://{host[:200]}")


def no_control(text: str, what: str) -> None:
    """CapabilityViolation when `text` holds a control character."""
    found = _CONTROL.search(text)
    if found:
        raise violation(CONTROL, f"{what} holds the control character "
                                 f"U+{ord(found.group()):04X}; CR, LF, NUL and other controls "
                                 "are refused")


def _string_map(value: object, what: str, limit: int) -> list[tuple[str, str]]:
    if value is None:
        return []
    if not isinstance(value, Mapping):
        raise violation(MALFORMED, f"{what} must be a dict of strings, got "
                                   f"{type(value).__name__}")
    if len(value) > limit:
        raise violation(TOO_LARGE_REQUEST, f"{what} has {len(value)} entries; the limit is "
                                           f"{limit}")
    items: list[tuple[str, str]] = []
    for key, item in value.items():
        if not isinstance(key, str) or not isinstance(item, str):
            raise violation(MALFORMED, f"{what} must map strings to strings (got "
                                       f"{type(key).__name__}: {type(item).__name__})")
        items.append((key, item))
    return items


def _headers(value: object, policy: CapabilityPolicy) -> tuple[tuple[str, str], ...]:
    items = _string_map(value, "headers", MAX_HEADERS)
    secret_headers = frozenset(h.replace("_", "-") for h in policy.secret_headers())
    seen: set[str] = set()
    total = 0
    for name, item in items:
        no_control(name, "a header name")
        no_control(item, f"header {name[:40]!r}")
        if not _TOKEN.fullmatch(name):
            raise violation(BAD_HEADER, f"header name {name[:40]!r} is not an HTTP token")
        # Compared with '_' as '-': CGI-style servers (WSGI, PHP) read X_Api_Key as X-Api-Key.
        lower = name.lower().replace("_", "-")
        if lower in HOST_HEADERS:
            raise violation(HOST_HEADER, f"header {name} is set by the host; a tool may not "
                                         "set it")
        if lower in secret_headers:
            raise violation(HOST_HEADER, f"header {name} carries a secret the host adds; a "
                                         "tool may not set it")
        if lower in seen:
            raise violation(BAD_HEADER, f"header {name} is given twice")
        seen.add(lower)
        if len(item) > MAX_HEADER_VALUE_CHARS or not _HEADER_VALUE.fullmatch(item):
            raise violation(BAD_HEADER, f"header {name}: a value must be printable ASCII of at "
                                        f"most {MAX_HEADER_VALUE_CHARS} characters")
        total += len(name) + len(item) + 4
    if total > MAX_HEADER_BYTES:
        raise violation(TOO_LARGE_REQUEST, f"the headers take {total} bytes; the limit is "
                                           f"{MAX_HEADER_BYTES}")
    return tuple(items)


def _encode_json(value: Any) -> bytes:
    try:
        text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise violation(MALFORMED, f"the json body is not JSON: {str(exc)[:200]}") from None
    body = text.encode("ascii")  # ensure_ascii: lone surrogates stay escapes
    if len(body) > MAX_BODY_BYTES:
        raise violation(TOO_LARGE_REQUEST, f"the json body is {len(body)} bytes; the limit is "
                                           f"{MAX_BODY_BYTES}")
    return body
