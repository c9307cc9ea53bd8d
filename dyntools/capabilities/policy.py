"""The operator's capability policy: a TOML file, and nothing is granted without one.

    [http]
    allow = ["api.github.com", "*.wikipedia.org", "127.0.0.1:8765"]
    allow_private = []            # CIDRs that may be reached ("127.0.0.1/32" in tests)
    max_response_bytes = 1048576
    timeout_s = 10
    max_requests_per_call = 16
    [secrets.DEMO_TOKEN]
    env = "DEMO_TOKEN"            # the host reads the value from this environment variable
    hosts = ["api.example.com"]   # the only hosts it is ever sent to
    header = "Authorization"
    template = "Bearer {}"
    [tools]
    allow = ["slugify_text"]

    policy = resolve_capability_policy(path_or_none)   # --capabilities, DYNTOOLS_CAPABILITIES
    policy.grants(caps)                                # per declared entry: granted or why not
    policy.describe()                                  # for the prompt and for display
    budget = RequestBudget(policy)                     # one call's requests, counted once

This module is where a grant starts: the environment variable's name (`CAPABILITIES_ENV`),
what "no policy" is (`EMPTY_POLICY`, `configured` False: nothing is granted, and `NO_POLICY`
says so), the policy as data, and the one count of a call's requests.

Every problem (unreadable, not TOML, an unknown key, a wrong type, a bad host or CIDR, an
out-of-range number, ...) is a CapabilityPolicyError naming the file, the key and what is
wrong. A tool's declaration and this policy are read by the same host grammar
(`dyntools.gate.capabilities.parse_host`).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from dyntools.base.toolname import tool_name_problem
from dyntools.capabilities.addresses import IPNetwork, address_problem, parse_address
from dyntools.errors import CapabilityPolicyError, CapabilityViolation
from dyntools.gate.capabilities import (
    DEFAULT_PORTS,
    Capabilities,
    DeclarationError,
    HostRule,
    parse_host,
    secret_name_problem,
)

CAPABILITIES_ENV = "DYNTOOLS_CAPABILITIES"
MAX_POLICY_BYTES = 64 * 1024
MAX_LIST = 256

DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_REQUESTS = 16
MAX_RESPONSE_BYTES_LIMIT = 64 * 1024 * 1024
MAX_TIMEOUT_S = 300.0
MAX_REQUESTS_LIMIT = 256

# Headers the host owns: a secret may not be sent in one of them and a tool may not set them.
HOST_HEADERS = frozenset({
    "host", "content-length", "transfer-encoding", "connection", "keep-alive",
    "proxy-connection", "proxy-authorization", "te", "trailer", "upgrade", "accept-encoding",
})

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_TOP = {"http": "[http]", "secrets": "[secrets.NAME]", "tools": "[tools]"}
_HTTP_KEYS = ("allow", "allow_private", "max_response_bytes", "timeout_s",
              "max_requests_per_call")
_SECRET_KEYS = ("env", "hosts", "header", "template")
_TOOLS_KEYS = ("allow",)

V = TypeVar("V")


class FrozenMap(Mapping[str, V]):
    """A read-only mapping that pickles (MappingProxyType does not), so a policy can travel
    to another process."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, V] | None = None) -> None:
        self._data: dict[str, V] = dict(data or {})

    def __getitem__(self, key: str) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"

    def __hash__(self) -> int:
        return hash(tuple(self._data.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMap, (self._data,))


@dataclass(frozen=True, slots=True)
class SecretRule:
    """Where a secret comes from and where it may go. It never holds the value: the broker
    reads `environ[env]` when it adds the header, so no repr or log can show it."""

    name: str
    env: str
    hosts: tuple[HostRule, ...]
    header: str = "Authorization"
    template: str = "Bearer {}"

    def applies_to(self, host: str, port: int, scheme: str) -> bool:
        return any(rule.matches(host, port, scheme) for rule in self.hosts)

    def header_value(self, value: str) -> str:
        return self.template.replace("{}", value)

    def __repr__(self) -> str:
        hosts = ", ".join(str(rule) for rule in self.hosts)
        return (f"SecretRule(name={self.name!r}, env={self.env!r}, hosts=[{hosts}], "
                f"header={self.header!r}, template={self.template!r})")


@dataclass(frozen=True, slots=True)
class Grant:
    """One declared entry and the policy's answer."""

    kind: str  # "http", "secrets" or "tools"
    entry: str
    granted: bool
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "entry": self.entry, "granted": self.granted,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Grants:
    """What a policy grants of a declaration, entry by entry (in declaration order)."""

    entries: tuple[Grant, ...] = ()

    def __iter__(self) -> Iterator[Grant]:
        return iter(self.entries)

    @property
    def refused(self) -> tuple[Grant, ...]:
        return tuple(grant for grant in self.entries if not grant.granted)

    @property
    def all_granted(self) -> bool:
        return not self.refused

    def as_dict(self) -> dict[str, Any]:
        return {"all_granted": self.all_granted,
                "entries": [grant.as_dict() for grant in self.entries]}


NO_POLICY = ("no capability policy is configured, so nothing is granted: pass --capabilities "
             f"FILE or set {CAPABILITIES_ENV}")
# Stable violation codes of the two refusals every request meets first (docs/capabilities.md).
NO_POLICY_CODE = "http.no_policy"
TOO_MANY_REQUESTS = "http.too_many_requests"


@dataclass(frozen=True, slots=True)
class CapabilityPolicy:
    """The operator's policy as data. `configured` is False only for EMPTY (no file at all:
    the broker then refuses every request)."""

    http_allow: tuple[HostRule, ...] = ()
    allow_private: tuple[IPNetwork, ...] = ()
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_requests_per_call: int = DEFAULT_MAX_REQUESTS
    secrets: Mapping[str, SecretRule] = field(default_factory=FrozenMap)
    tools_allow: tuple[str, ...] = ()
    source: str | None = None
    digest: str = ""
    configured: bool = True

    EMPTY: ClassVar[CapabilityPolicy]

    def allows_http(self, host: str, port: int, scheme: str) -> bool:
        return any(rule.matches(host, port, scheme) for rule in self.http_allow)

    def secret_headers(self) -> frozenset[str]:
        """The (lowercase) header names the policy's secrets travel in."""
        return frozenset(rule.header.lower() for rule in self.secrets.values())

    def grants(self, caps: Capabilities) -> Grants:
        """Per declared entry: granted, or refused and why. Pure (no DNS, no environment):
        a host name's addresses are checked when a request resolves it."""
        out: list[Grant] = []
        for rule in caps.http:
            granted, reason = self._grant_host(rule)
            out.append(Grant("http", str(rule), granted, reason))
        declared_hosts = caps.http
        for name in caps.secrets:
            out.append(self._grant_secret(name, declared_hosts))
        for name in caps.tools:
            if not self.configured:
                out.append(Grant("tools", name, False, NO_POLICY))
            elif name in self.tools_allow:
                out.append(Grant("tools", name, True, "in the operator's tools.allow"))
            else:
                out.append(Grant("tools", name, False, "not in the operator's tools.allow"))
        return Grants(tuple(out))

    def _grant_host(self, rule: HostRule) -> tuple[bool, str]:
        if not self.configured:
            return False, NO_POLICY
        address = parse_address(rule.host)
        if address is not None:
            problem = address_problem(address, self.allow_private)
            if problem is not None:
                return False, (f"{rule.host} is refused ({problem}); the operator's "
                               "http.allow_private would have to hold a CIDR with it")
        same_host = [allow for allow in self.http_allow if _host_covers(allow, rule.host)]
        for allow in same_host:
            if allow.port == rule.port:
                return True, f"allowed by http.allow {str(allow)!r}"
        for allow in same_host:
            if allow.port is None and rule.port in DEFAULT_PORTS.values():
                scheme = "https" if rule.port == 443 else "http"
                return True, (f"allowed by http.allow {str(allow)!r} over {scheme} only "
                              f"(port {rule.port} is {scheme}'s default)")
        if same_host:
            ports = ", ".join(str(allow) for allow in same_host)
            return False, f"the operator's http.allow has this host only as {ports}"
        return False, "not in the operator's http.allow"

    def _grant_secret(self, name: str, declared: tuple[HostRule, ...]) -> Grant:
        if not self.configured:
            return Grant("secrets", name, False, NO_POLICY)
        secret = self.secrets.get(name)
        if secret is None:
            return Grant("secrets", name, False, "the operator's policy defines no such secret")
        hosts = ", ".join(str(rule) for rule in secret.hosts)
        reason = f"sent by the host as {secret.header} to {hosts} only"
        if not any(host == other for host in secret.hosts for other in declared):
            reason += ("; none of those hosts is in the tool's http declaration, so it is "
                       "never sent")
        return Grant("secrets", name, True, reason)

    def describe(self) -> dict[str, Any]:
        """The policy for the prompt and for display: hosts, secret NAMES and the hosts they
        go to, tools, limits. Never an environment variable's value."""
        return {
            "source": self.source,
            "digest": self.digest,
            "configured": self.configured,
            "http": {
                "allow": [str(rule) for rule in self.http_allow],
                "allow_private": [str(net) for net in self.allow_private],
                "max_response_bytes": self.max_response_bytes,
                "timeout_s": self.timeout_s,
                "max_requests_per_call": self.max_requests_per_call,
            },
            "secrets": [{"name": name, "hosts": [str(rule) for rule in rule_.hosts]}
                        for name, rule_ in sorted(self.secrets.items())],
            "tools": list(self.tools_allow),
        }


EMPTY_POLICY = CapabilityPolicy(configured=False)
CapabilityPolicy.EMPTY = EMPTY_POLICY


def no_policy(capability: str) -> CapabilityViolation:
    """The refusal of a live request made where no policy is configured."""
    return CapabilityViolation(NO_POLICY, capability=capability, code=NO_POLICY_CODE)


class RequestBudget:
    """One call's host requests, counted once: every request a tool makes through the host
    (an HTTP request, broker or replay, and a composed tool's call) is admitted here first,
    against the policy's `max_requests_per_call` (its default without a policy). `non_get`
    turns true once a request that may act on the world (not a GET) is sent."""

    __slots__ = ("limit", "made", "non_get")

    def __init__(self, policy: CapabilityPolicy) -> None:
        self.limit = policy.max_requests_per_call
        self.made = 0
        self.non_get = False

    def admit(self) -> None:
        if self.made >= self.limit:
            raise CapabilityViolation(
                f"the tool made more than {self.limit} host requests in one call "
                "(max_requests_per_call)", capability="requests", code=TOO_MANY_REQUESTS)
        self.made += 1


def _host_covers(allow: HostRule, host: str) -> bool:
    if allow.subdomains:
        return host.endswith("." + allow.host)
    return host == allow.host


# ----------------------------------------------------------------------------- loading


def resolve_capability_policy(given: CapabilityPolicy | str | os.PathLike[str] | None = None,
                              environ: Mapping[str, str] = os.environ) -> CapabilityPolicy:
    """The policy in force: `given` (a policy, or its file: `--capabilities FILE`), else the
    file `$DYNTOOLS_CAPABILITIES` names, else EMPTY_POLICY (nothing granted)."""
    if isinstance(given, CapabilityPolicy):
        return given
    chosen = os.fspath(given) if given else environ.get(CAPABILITIES_ENV, "")
    if not chosen:
        return EMPTY_POLICY
    return load_capability_policy(chosen)


def load_capability_policy(path: str | os.PathLike[str]) -> CapabilityPolicy:
    from dyntools.base.regular_files import read_regular

    shown = os.fspath(path)
    try:
        data = read_regular(path, MAX_POLICY_BYTES + 1)  # a FIFO, a device: refused at once
    except OSError as exc:
        raise CapabilityPolicyError(
            f"{shown}: cannot read the capability policy: {exc.strerror or exc}",
            file=shown) from None
    if len(data) > MAX_POLICY_BYTES:
        raise CapabilityPolicyError(
            f"{shown}: the capability policy is larger than {MAX_POLICY_BYTES} bytes",
            file=shown)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CapabilityPolicyError(
            f"{shown}: the capability policy is not UTF-8 (byte {exc.start})",
            file=shown) from None
    import tomllib  # only where a policy file is read

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CapabilityPolicyError(f"{shown}: not valid TOML: {exc}", file=shown) from None
    return policy_from_mapping(raw, source=str(Path(shown)))


def policy_from_mapping(data: Mapping[str, Any], source: str | None = None) -> CapabilityPolicy:
    """A policy from already-parsed TOML (or any mapping of the same shape)."""
    where = source or "<capability policy>"
    reader = _Reader(where)
    if not isinstance(data, Mapping):
        raise reader.error("", f"the policy must be a table, got {type(data).__name__}")
    reader.known_keys("", data, tuple(_TOP))
    http = reader.table(data, "http")
    reader.known_keys("http", http, _HTTP_KEYS)
    allow = reader.hosts(http, "http", "allow", wildcard=True)
    private = reader.cidrs(http, "http", "allow_private")
    max_bytes = reader.integer(http, "http", "max_response_bytes",
                               DEFAULT_MAX_RESPONSE_BYTES, 1, MAX_RESPONSE_BYTES_LIMIT)
    timeout = reader.number(http, "http", "timeout_s", DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S)
    max_requests = reader.integer(http, "http", "max_requests_per_call",
                                  DEFAULT_MAX_REQUESTS, 1, MAX_REQUESTS_LIMIT)
    secrets_table = reader.table(data, "secrets")
    secrets: dict[str, SecretRule] = {}
    for name, table in secrets_table.items():
        secrets[name] = reader.secret(name, table, allow)
    _check_secret_headers(reader, secrets)
    tools_table = reader.table(data, "tools")
    reader.known_keys("tools", tools_table, _TOOLS_KEYS)
    tools = reader.tool_names(tools_table, "tools", "allow")
    policy = CapabilityPolicy(
        http_allow=allow, allow_private=private, max_response_bytes=max_bytes,
        timeout_s=timeout, max_requests_per_call=max_requests, secrets=FrozenMap(secrets),
        tools_allow=tools, source=source)
    return _with_digest(policy)


def _with_digest(policy: CapabilityPolicy) -> CapabilityPolicy:
    canonical = {
        "http": {"allow": [str(rule) for rule in policy.http_allow],
                 "allow_private": [str(net) for net in policy.allow_private],
                 "max_response_bytes": policy.max_response_bytes,
                 "timeout_s": policy.timeout_s,
                 "max_requests_per_call": policy.max_requests_per_call},
        "secrets": {name: {"env": rule.env, "hosts": [str(h) for h in rule.hosts],
                           "header": rule.header, "template": rule.template}
                    for name, rule in sorted(policy.secrets.items())},
        "tools": {"allow": list(policy.tools_allow)},
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return CapabilityPolicy(
        http_allow=policy.http_allow, allow_private=policy.allow_private,
        max_response_bytes=policy.max_response_bytes, timeout_s=policy.timeout_s,
        max_requests_per_call=policy.max_requests_per_call, secrets=policy.secrets,
        tools_allow=policy.tools_allow, source=policy.source, digest=digest)


def _check_secret_headers(reader: _Reader, secrets: Mapping[str, SecretRule]) -> None:
    """Two secrets in the same header for the same host would race for it."""
    seen: dict[tuple[str, HostRule], str] = {}
    for name, rule in secrets.items():
        for host in rule.hosts:
            key = (rule.header.lower(), host)
            other = seen.get(key)
            if other is not None:
                raise reader.error(f"secrets.{name}.header",
                                   f"secrets {other} and {name} are both sent as "
                                   f"{rule.header} to {host}; give each host one secret "
                                   "per header")
            seen[key] = name


class _Reader:
    """Reads one key at a time and turns every problem into a CapabilityPolicyError that
    names the file and the key."""

    def __init__(self, where: str) -> None:
        self.where = where

    def error(self, key: str, message: str) -> CapabilityPolicyError:
        located = f"{self.where}: {key}: {message}" if key else f"{self.where}: {message}"
        return CapabilityPolicyError(located, file=self.where, key=key)

    def known_keys(self, prefix: str, table: Mapping[str, Any], known: tuple[str, ...]) -> None:
        for key in table:
            if key not in known:
                name = f"{prefix}.{key}" if prefix else str(key)
                raise self.error(name[:120], "unknown key (a typo?); known keys here: "
                                             + ", ".join(known))

    def table(self, data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, Mapping):
            raise self.error(key, f"must be a table ({_TOP[key]}), got {_kind(value)}")
        return value

    def strings(self, table: Mapping[str, Any], prefix: str, key: str) -> list[str]:
        value = table.get(key, [])
        name = f"{prefix}.{key}"
        if not isinstance(value, list):
            raise self.error(name, f"must be a list of strings, got {_kind(value)}")
        if len(value) > MAX_LIST:
            raise self.error(name, f"has {len(value)} entries; the limit is {MAX_LIST}")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise self.error(f"{name}[{index}]", f"must be a string, got {_kind(item)}")
        return list(value)

    def hosts(self, table: Mapping[str, Any], prefix: str, key: str, *,
              wildcard: bool) -> tuple[HostRule, ...]:
        rules: list[HostRule] = []
        for index, entry in enumerate(self.strings(table, prefix, key)):
            try:
                rule = parse_host(entry, wildcard=wildcard)
            except DeclarationError as exc:
                raise self.error(f"{prefix}.{key}[{index}]", exc.message) from None
            if rule in rules:
                raise self.error(f"{prefix}.{key}[{index}]", f"{entry!r} is listed twice")
            rules.append(rule)
        return tuple(rules)

    def cidrs(self, table: Mapping[str, Any], prefix: str, key: str) -> tuple[IPNetwork, ...]:
        networks: list[IPNetwork] = []
        for index, entry in enumerate(self.strings(table, prefix, key)):
            name = f"{prefix}.{key}[{index}]"
            if "/" not in entry:
                raise self.error(name, f"{entry[:60]!r} is not a CIDR; write an address with "
                                       "its prefix length, e.g. '127.0.0.1/32'")
            try:
                network = ipaddress.ip_network(entry, strict=True)
            except ValueError as exc:
                raise self.error(name, f"{entry[:60]!r} is not a CIDR: {exc}") from None
            if network.prefixlen == 0:
                raise self.error(name, f"{entry!r} allows every address; list the private "
                                       "ranges you mean")
            networks.append(network)
        return tuple(networks)

    def integer(self, table: Mapping[str, Any], prefix: str, key: str, default: int,
                low: int, high: int) -> int:
        value = table.get(key, default)
        name = f"{prefix}.{key}"
        if type(value) is not int:
            raise self.error(name, f"must be an integer, got {_kind(value)}")
        if not low <= value <= high:
            raise self.error(name, f"must be from {low} to {high}, got {value}")
        return value

    def number(self, table: Mapping[str, Any], prefix: str, key: str, default: float,
               high: float) -> float:
        value = table.get(key, default)
        name = f"{prefix}.{key}"
        if type(value) not in (int, float):
            raise self.error(name, f"must be a number of seconds, got {_kind(value)}")
        if not 0 < value <= high:  # also refuses nan
            raise self.error(name, f"must be more than 0 and at most {high:g}, got {value}")
        return float(value)

    def tool_names(self, table: Mapping[str, Any], prefix: str, key: str) -> tuple[str, ...]:
        names: list[str] = []
        for index, entry in enumerate(self.strings(table, prefix, key)):
            problem = tool_name_problem(entry)
            if problem:
                raise self.error(f"{prefix}.{key}[{index}]", problem)
            if entry in names:
                raise self.error(f"{prefix}.{key}[{index}]", f"{entry!r} is listed twice")
            names.append(entry)
        return tuple(names)

    def secret(self, name: str, table: object, allow: tuple[HostRule, ...]) -> SecretRule:
        prefix = f"secrets.{str(name)[:64]}"
        problem = secret_name_problem(name)
        if problem:
            raise self.error(prefix, problem)
        if not isinstance(table, Mapping):
            raise self.error(prefix, f"must be a table ([{prefix}]), got {_kind(table)}")
        self.known_keys(prefix, table, _SECRET_KEYS)
        for required in ("env", "hosts"):
            if required not in table:
                raise self.error(f"{prefix}.{required}", "is required")
        env = table["env"]
        if not isinstance(env, str) or not _ENV_NAME.fullmatch(env):
            raise self.error(f"{prefix}.env", "must be an environment variable's name "
                                              "(letters, digits and underscores)")
        hosts = self.hosts(table, prefix, "hosts", wildcard=False)
        if not hosts:
            raise self.error(f"{prefix}.hosts", "must name at least one host")
        for index, host in enumerate(hosts):
            if not any(_host_covers(rule, host.host) and rule.port == host.port
                       for rule in allow):
                raise self.error(f"{prefix}.hosts[{index}]",
                                 f"{str(host)!r} is not in http.allow; a secret goes only "
                                 "to hosts the policy allows")
        header = table.get("header", "Authorization")
        if not isinstance(header, str) or not _TOKEN.fullmatch(header):
            raise self.error(f"{prefix}.header", "must be a header name (an HTTP token: "
                                                 "letters, digits and !#$%&'*+-.^_`|~)")
        if header.lower() in HOST_HEADERS:
            raise self.error(f"{prefix}.header", f"{header} is set by the host itself")
        template = table.get("template", "Bearer {}")
        if not isinstance(template, str):
            raise self.error(f"{prefix}.template", f"must be a string, got {_kind(template)}")
        if template.count("{}") != 1 or template.replace("{}", "").count("{") or \
                template.replace("{}", "").count("}"):
            raise self.error(f"{prefix}.template", f"{template[:60]!r} must hold exactly one "
                                                   "'{}' (where the value goes) and no other "
                                                   "braces")
        if len(template) > 256 or any(not 32 <= ord(char) < 127 for char in template):
            raise self.error(f"{prefix}.template", "must be printable ASCII (a header value), "
                                                   "at most 256 characters")
        return SecretRule(name, env, hosts, header, template)


def _kind(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "a table"}
    return names.get(type(value), type(value).__name__)
