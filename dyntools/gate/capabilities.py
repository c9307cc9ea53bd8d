"""What a tool may reach through the host: its `CAPABILITIES` declaration, as data.

    CAPABILITIES = {"http": ["api.example.com", "127.0.0.1:8765"],
                    "secrets": ["DEMO_TOKEN"], "tools": ["slugify_text"]}

    caps = parse_capabilities(value)          # Capabilities, or DeclarationError(path, msg)
    caps.allows_http("api.example.com", 443, "https")
    new.widens(old)                           # what `new` may reach that `old` may not

A pure leaf: no I/O, nothing imported from the rest of dyntools but the tool-name rule. The
gate checks a file's declaration with it, the host's broker enforces it, and review compares
two versions' declarations with it, so all three read a declaration the same way.

Hosts are plain names or addresses, matched exactly: `api.example.com` is that host on the
scheme's default port (80 for http, 443 for https); `api.example.com:8443` and
`127.0.0.1:8765` are that port only, for either scheme; an IPv6 address is written in
brackets (`[2001:db8::1]`, `[::1]:8080`). A tool's own declaration has no scheme, path,
userinfo or wildcard; the operator's policy may also allow `*.example.com` (any subdomain,
not the name itself), parsed here with `wildcard=True`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from dyntools.base.toolname import tool_name_problem

if TYPE_CHECKING:
    from typing import Any

HTTP, SECRETS, TOOLS = "http", "secrets", "tools"
KINDS = (HTTP, SECRETS, TOOLS)
MAX_ENTRIES = 32
MAX_HOST_CHARS = 253
MAX_SECRET_CHARS = 64
DEFAULT_PORTS = {"http": 80, "https": 443}

# An uppercase ASCII letter, then uppercase letters, digits and underscores (a secret's name;
# a tool file's top-level constant).
_UPPER_SNAKE = re.compile(r"[A-Z][A-Z0-9_]*")
# 1-63 lowercase ASCII letters, digits and hyphens, neither first nor last a hyphen.
_DNS_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_PORT_DIGITS = re.compile(r"[0-9]{1,5}")


def is_upper_snake(name: str) -> bool:
    return _UPPER_SNAKE.fullmatch(name) is not None


def is_dns_label(label: str) -> bool:
    return _DNS_LABEL.fullmatch(label) is not None


def is_port_digits(text: str) -> bool:
    return _PORT_DIGITS.fullmatch(text) is not None


Path = tuple[str | int, ...]


class DeclarationError(ValueError):
    """A declaration (or a policy entry) that is not well formed. `path` locates the value
    inside the literal: ("http", 2) is the third host of the http list."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


class HostRule(NamedTuple):
    """One host entry. `host` is lowercase (an IPv6 address without brackets, compressed);
    `port` None means the scheme's default port; `subdomains` is a policy's `*.` rule."""

    host: str
    port: int | None = None
    subdomains: bool = False

    def matches(self, host: str, port: int, scheme: str) -> bool:
        """True when a request to `host`:`port` over `scheme` falls under this rule."""
        host = host.lower().rstrip(".")
        if self.subdomains:
            if not host.endswith("." + self.host):
                return False
        elif host != self.host:
            return False
        if self.port is None:
            return DEFAULT_PORTS.get(scheme) == port
        return port == self.port

    def __str__(self) -> str:
        name = f"[{self.host}]" if ":" in self.host else self.host
        if self.subdomains:
            name = "*." + name
        return name if self.port is None else f"{name}:{self.port}"


def parse_host(entry: object, *, wildcard: bool = False, path: Path = ()) -> HostRule:
    """One host entry as a HostRule; raises DeclarationError saying what is wrong with it."""
    if not isinstance(entry, str):
        raise DeclarationError(path, f"a host must be a string, got {type(entry).__name__}")
    shown = repr(entry[:80])
    if not entry:
        raise DeclarationError(path, "a host may not be empty")
    if len(entry) > MAX_HOST_CHARS + 8:
        raise DeclarationError(path, f"host {shown}... is longer than {MAX_HOST_CHARS} "
                                     "characters")
    if "://" in entry:
        raise DeclarationError(path, f"host {shown} has a scheme; write the host only "
                                     "(the scheme comes from the URL the tool requests)")
    for char, what in (("/", "a path"), ("@", "userinfo"), ("?", "a query"), ("#", "a fragment"),
                       ("\\", "a backslash"), ("%", "a percent escape")):
        if char in entry:
            raise DeclarationError(path, f"host {shown} has {what}; write the host only")
    if not entry.isascii() or any(c.isspace() or ord(c) < 33 for c in entry):
        raise DeclarationError(path, f"host {shown} must be ASCII without spaces or control "
                                     "characters (write an internationalised name in its "
                                     "xn-- form)")
    subdomains = False
    rest = entry
    if rest.startswith("*."):
        if not wildcard:
            raise DeclarationError(path, f"host {shown} is a wildcard; a tool declares the "
                                         "exact hosts it reaches (the operator's policy may "
                                         "use *.)")
        subdomains, rest = True, rest[2:]
    if "*" in rest:
        raise DeclarationError(path, f"host {shown}: '*' is allowed only as a leading '*.' "
                                     "in the operator's policy")
    host, port = _split_port(rest, shown, path)
    if host.startswith("["):
        if not host.endswith("]"):
            raise DeclarationError(path, f"host {shown}: unclosed '[' around an IPv6 address")
        try:
            import ipaddress  # only for addresses: a name never needs it

            address = ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            raise DeclarationError(path, f"host {shown} is not a valid IPv6 address") from None
        if subdomains:
            raise DeclarationError(path, f"host {shown}: an address has no subdomains")
        return HostRule(address.compressed, port)
    if host != host.lower():
        raise DeclarationError(path, f"host {shown} must be lowercase")
    if host.endswith("."):
        raise DeclarationError(path, f"host {shown} ends with a dot; write it without one")
    if len(host) > MAX_HOST_CHARS:
        raise DeclarationError(path, f"host {shown} is longer than {MAX_HOST_CHARS} characters")
    labels = host.split(".")
    if all(label.isdigit() for label in labels) or _looks_numeric(labels[-1]):
        # Only the canonical dotted quad: 127.1, 0x7f.0.0.1, 2130706433 and 0177.0.0.1 all
        # name loopback to some resolvers and none of them is what a reviewer reads.
        import ipaddress

        try:
            canonical = str(ipaddress.IPv4Address(host))
        except ValueError:
            canonical = ""
        if canonical != host or subdomains:
            raise DeclarationError(path, f"host {shown} is not a host name or a dotted-quad "
                                         "IPv4 address (a.b.c.d, decimal, no leading zeros)")
        return HostRule(host, port)
    for label in labels:
        if not is_dns_label(label):
            raise DeclarationError(path, f"host {shown}: label {label[:63]!r} is not a DNS "
                                         "label (letters, digits and inner hyphens, at most "
                                         "63)")
    return HostRule(host, port, subdomains)


def _looks_numeric(label: str) -> bool:
    return label.isdigit() or label.startswith("0x")


def _split_port(text: str, shown: str, path: Path) -> tuple[str, int | None]:
    if text.startswith("["):
        close = text.find("]")
        if close < 0 or close == len(text) - 1:
            return text, None
        if text[close + 1] != ":":
            raise DeclarationError(path, f"host {shown}: expected ':PORT' after ']'")
        return text[: close + 1], _port(text[close + 2:], shown, path)
    if text.count(":") > 1:
        raise DeclarationError(path, f"host {shown}: write an IPv6 address in brackets, "
                                     "[2001:db8::1]")
    if ":" in text:
        host, _, port = text.partition(":")
        return host, _port(port, shown, path)
    return text, None


def _port(text: str, shown: str, path: Path) -> int:
    if not is_port_digits(text) or not 0 < int(text) < 65536:
        raise DeclarationError(path, f"host {shown}: the port must be a number from 1 to 65535")
    return int(text)


def secret_name_problem(name: object) -> str | None:
    """Why `name` is not a secret's name (UPPER_SNAKE, at most 64 characters), or None."""
    if not isinstance(name, str):
        return f"a secret name must be a string, got {type(name).__name__}"
    if not is_upper_snake(name) or len(name) > MAX_SECRET_CHARS:
        return (f"secret name {name[:40]!r} must be UPPER_SNAKE_CASE: an uppercase ASCII "
                f"letter, then uppercase letters, digits and underscores, at most "
                f"{MAX_SECRET_CHARS}")
    return None


class Capabilities(NamedTuple):
    """A parsed declaration. Empty (falsy) for a tool that declares nothing."""

    http: tuple[HostRule, ...] = ()
    secrets: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.http or self.secrets or self.tools)

    def allows_http(self, host: str, port: int, scheme: str) -> bool:
        return any(rule.matches(host, port, scheme) for rule in self.http)

    def as_dict(self) -> dict[str, list[str]]:
        """The declaration as it would be written (only the kinds it uses)."""
        out: dict[str, list[str]] = {}
        if self.http:
            out[HTTP] = [str(rule) for rule in self.http]
        if self.secrets:
            out[SECRETS] = list(self.secrets)
        if self.tools:
            out[TOOLS] = list(self.tools)
        return out

    def widens(self, other: Capabilities | None) -> dict[str, list[str]]:
        """What this declaration reaches that `other` does not (by kind; empty when none).
        Against None (no earlier version), everything it declares widens."""
        before = other.as_dict() if other is not None else {}
        added: dict[str, list[str]] = {}
        for kind, entries in self.as_dict().items():
            new = [entry for entry in entries if entry not in before.get(kind, [])]
            if new:
                added[kind] = new
        return added

    def summary(self) -> str:
        """One line for listings: `http: a.com, b.org; secrets: T; tools: x` or `none`."""
        parts = [f"{kind}: {', '.join(entries)}" for kind, entries in self.as_dict().items()]
        return "; ".join(parts) if parts else "none"


NONE = Capabilities()


def parse_capabilities(value: object) -> Capabilities:
    """A CAPABILITIES literal as Capabilities; raises DeclarationError at the first problem
    (its `path` points into the literal)."""
    if not isinstance(value, Mapping):
        raise DeclarationError((), "CAPABILITIES must be a dict such as "
                                   '{"http": ["api.example.com"]}, got '
                                   f"{type(value).__name__}")
    for key in value:
        if key not in KINDS:
            raise DeclarationError((), f"CAPABILITIES has an unknown key {str(key)[:40]!r}; "
                                       f"known: {', '.join(KINDS)}")
    http = tuple(_unique(HTTP, [parse_host(entry, path=(HTTP, index))
                                for index, entry in enumerate(_entries(value, HTTP))]))
    secrets = _names(value, SECRETS, secret_name_problem)
    tools = _names(value, TOOLS, tool_name_problem)
    return Capabilities(http, tuple(_unique(SECRETS, secrets)), tuple(_unique(TOOLS, tools)))


def _names(value: Mapping[Any, Any], kind: str,
           problem_of: Callable[[Any], str | None]) -> list[str]:
    """The entries of `kind` (secrets, tools), each a name `problem_of` finds no problem
    with; the first one it finds a problem with is the DeclarationError, at its index."""
    names: list[str] = []
    for index, entry in enumerate(_entries(value, kind)):
        problem = problem_of(entry)
        if problem:
            raise DeclarationError((kind, index), problem)
        names.append(entry)
    return names


def _entries(value: Mapping[Any, Any], kind: str) -> list[Any]:
    entries = value.get(kind, [])
    if not isinstance(entries, list | tuple):
        raise DeclarationError((kind,), f"CAPABILITIES[{kind!r}] must be a list of strings, "
                                        f"got {type(entries).__name__}")
    if len(entries) > MAX_ENTRIES:
        raise DeclarationError((kind,), f"CAPABILITIES[{kind!r}] has {len(entries)} entries; "
                                        f"the limit is {MAX_ENTRIES}")
    return list(entries)


def _unique(kind: str, entries: Iterable[Any]) -> list[Any]:
    seen: list[Any] = []
    for index, entry in enumerate(entries):
        if entry in seen:
            raise DeclarationError((kind, index), f"CAPABILITIES[{kind!r}] lists "
                                                  f"{str(entry)!r} twice")
        seen.append(entry)
    return seen


# ----------------------------------------------------------------- recorded exchanges

# What an example may carry so that verification needs no network:
#   {"params": {...}, "result": {...},
#    "http": [{"request": {"method": "GET", "url": "https://api.example.com/x?q=1"},
#              "response": {"status": 200, "headers": {...}, "text": "..."}}]}
# A POST's request may hold the "json" body it must send. Instead of a "response", an
# exchange may record an ordinary failure: {"request": ..., "failure": "timeout"}.
METHODS = ("GET", "POST")
FAILURES = ("timeout", "dns", "connection", "too_large")
MAX_EXCHANGES = 16
_REQUEST_KEYS = frozenset({"method", "url", "json"})
_RESPONSE_KEYS = frozenset({"status", "headers", "text"})


class Exchange(NamedTuple):
    """One recorded request and what the host answered (a response or a failure)."""

    method: str
    url: str
    json: Any = None
    has_json: bool = False
    status: int | None = None
    headers: tuple[tuple[str, str], ...] = ()
    text: str = ""
    failure: str | None = None

    def as_dict(self) -> dict[str, Any]:
        request: dict[str, Any] = {"method": self.method, "url": self.url}
        if self.has_json:
            request["json"] = self.json
        if self.failure is not None:
            return {"request": request, "failure": self.failure}
        return {"request": request, "response": {"status": self.status,
                                                 "headers": dict(self.headers),
                                                 "text": self.text}}


def parse_exchanges(value: object, path: Path = ("http",)) -> tuple[Exchange, ...]:
    """An example's "http" list as Exchanges; raises DeclarationError (its path points into
    the example) at the first problem."""
    if not isinstance(value, list | tuple):
        raise DeclarationError(path, 'an example\'s "http" must be a list of recorded '
                                     f"exchanges, got {type(value).__name__}")
    if len(value) > MAX_EXCHANGES:
        raise DeclarationError(path, f'an example records {len(value)} exchanges; the limit '
                                     f"is {MAX_EXCHANGES}")
    return tuple(_exchange(entry, (*path, index)) for index, entry in enumerate(value))


def _exchange(entry: object, path: Path) -> Exchange:
    if not isinstance(entry, Mapping) or "request" not in entry or \
            set(entry) not in ({"request", "response"}, {"request", "failure"}):
        raise DeclarationError(path, 'a recorded exchange is {"request": {...}, "response": '
                                     '{...}} or {"request": {...}, "failure": "timeout"}')
    request = entry["request"]
    if not isinstance(request, Mapping) or not {"method", "url"} <= set(request) or \
            not set(request) <= _REQUEST_KEYS:
        raise DeclarationError((*path, "request"), 'a recorded request is {"method": "GET", '
                                                   '"url": "https://..."} (a POST may add '
                                                   '"json")')
    method, url = request["method"], request["url"]
    if method not in METHODS:
        raise DeclarationError((*path, "request", "method"),
                               f"a recorded method must be one of {', '.join(METHODS)}")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise DeclarationError((*path, "request", "url"),
                               "a recorded url must be a string starting with http:// or "
                               "https://")
    has_json = "json" in request
    if has_json and method != "POST":
        raise DeclarationError((*path, "request", "json"), "only a POST sends a json body")
    if "failure" in entry:
        failure = entry["failure"]
        if failure not in FAILURES:
            raise DeclarationError((*path, "failure"),
                                   f"a recorded failure must be one of {', '.join(FAILURES)}")
        return Exchange(method, url, request.get("json"), has_json, failure=failure)
    response = entry["response"]
    if not isinstance(response, Mapping) or "status" not in response or \
            not set(response) <= _RESPONSE_KEYS:
        raise DeclarationError((*path, "response"), 'a recorded response is {"status": 200, '
                                                    '"headers": {...}, "text": "..."}')
    status = response["status"]
    if type(status) is not int or not 100 <= status <= 599:
        raise DeclarationError((*path, "response", "status"),
                               "a recorded status must be an integer from 100 to 599")
    headers = response.get("headers", {})
    if not isinstance(headers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise DeclarationError((*path, "response", "headers"),
                               "recorded headers must map strings to strings")
    text = response.get("text", "")
    if not isinstance(text, str):
        raise DeclarationError((*path, "response", "text"), "a recorded text must be a string")
    return Exchange(method, url, request.get("json"), has_json, status,
                    tuple((k.lower(), v) for k, v in headers.items()), text)
