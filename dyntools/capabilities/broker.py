"""The host's HTTP broker: the only way a tool's request reaches the network.

    broker = HttpBroker(policy, audit=log_event)
    session = broker.session(tool="weather", version=3, declared=caps,
                             deadline=time.monotonic() + remaining)
    session.request({"method": "GET", "url": "https://api.example.com/x",
                     "params": {"q": "oslo"}, "headers": None})
    # -> {"status": 200, "headers": {"content-type": "..."}, "text": "..."}

A request that is not granted raises CapabilityViolation (the host ends the call); a granted
request that fails raises HttpFailure (the tool may catch it). For each request, in order:
the policy exists; the call's request budget; the frame's shape (`checks.shape_request`);
then for the request and for every redirect hop: scheme, userinfo, host form, the tool's
declaration, the operator's http.allow (`checks.check_target`); one DNS lookup whose every
address must be public or inside http.allow_private; the connection goes to those addresses
only (`pinning`); secrets for that hop's host; the response streamed under the size cap and
the request's single deadline. docs/capabilities.md describes each step.
"""

from __future__ import annotations

import codecs
import os
import re
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

import httpcore
import httpx

from dyntools.base.closing import Closing
from dyntools.capabilities import checks
from dyntools.capabilities.addresses import IPAddress, address_problem, parse_address
from dyntools.capabilities.checks import Target, check_target, shape_request
from dyntools.capabilities.failures import (
    CONNECTION,
    DNS,
    PROTOCOL,
    REDIRECTS,
    STATUS,
    TIMEOUT,
    TLS,
    TOO_LARGE,
    HttpFailure,
    violation,
)
from dyntools.capabilities.pinning import (
    CURRENT_HOP,
    Hop,
    PinnedBackend,
    TlsFailure,
    UnpinnedConnect,
)
from dyntools.capabilities.policy import CapabilityPolicy, RequestBudget, no_policy
from dyntools.capabilities.redaction import Redactor, available_secrets, secret_value
from dyntools.errors import CapabilityViolation
from dyntools.gate.capabilities import Capabilities

DNS_THREADS = 4  # lookups in flight at once, per broker

Resolver = Callable[[str, int], list[str]]
Audit = Callable[[dict[str, Any]], None]

MAX_REDIRECTS = 5
MAX_ADDRESSES = 64
MAX_RESPONSE_HEADERS = 100
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "dyntools-broker/1"
# Headers a tool set for one origin that do not follow a redirect to another.
_CROSS_ORIGIN_DROP = frozenset({"authorization", "cookie"})
# Tool-set headers a hop that carries a secret does not take: with them, a host that echoes
# request headers answers a few bytes of its echo at a time, each too short to redact, and
# the tool reassembles the secret (compared as checks.py compares names: `_` as `-`).
_PARTIAL_CONTENT = frozenset({"range", "if-range"})


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `getaddrinfo` gives for `host` (TCP), in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    seen: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in seen:
            seen.append(address)
    return seen


class HttpBroker(Closing):
    """One per host process and policy: a pinned connection pool (keep-alive across calls)
    and the DNS lookups. Sessions carry the per-call state."""

    def __init__(self, policy: CapabilityPolicy, *, resolver: Resolver | None = None,
                 audit: Audit | None = None, environ: Mapping[str, str] | None = None,
                 ssl_context: ssl.SSLContext | None = None, max_connections: int = 32) -> None:
        self.policy = policy
        self._resolver = resolver or system_resolver
        self._audit = audit
        self._environ: Mapping[str, str] = os.environ if environ is None else environ
        # No proxies, no netrc, no SSL_CERT_* variables: nothing from the environment.
        context = ssl_context if ssl_context is not None else \
            httpx.create_ssl_context(trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=context, max_connections=max_connections,
            max_keepalive_connections=max_connections, keepalive_expiry=30.0,
            http1=True, http2=False, retries=0, network_backend=PinnedBackend())
        # getaddrinfo has no timeout: each lookup runs on a daemon thread (a hung one never
        # holds up the process's exit), at most DNS_THREADS at once.
        self._dns_slots = threading.BoundedSemaphore(DNS_THREADS)
        self._closed = False

    def session(self, *, tool: str, version: int | None, declared: Capabilities,
                deadline: float, budget: RequestBudget | None = None) -> BrokerSession:
        """A call's session; `deadline` is a time.monotonic() value (the call's time), and
        `budget` counts the call's requests (the caller's, when it counts other requests of
        the same call too; else the session's own)."""
        if self._closed:
            raise RuntimeError("the broker is closed")
        return BrokerSession(self, tool, version, declared, deadline,
                             budget if budget is not None else RequestBudget(self.policy))

    def close(self) -> None:
        self._closed = True
        self._pool.close()


    def _lookup(self, host: str, port: int, deadline: float) -> list[str]:
        """The resolver's answer, within the deadline (getaddrinfo has no timeout of its
        own, so it runs on a daemon thread and is abandoned at the deadline)."""
        late = HttpFailure(f"the DNS lookup of {host} did not finish before the deadline",
                           kind=TIMEOUT)
        if not self._dns_slots.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise late  # every lookup thread is stuck on an earlier, unanswered lookup
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def resolve() -> None:
            try:
                outcome["answer"] = self._resolver(host, port)
            except BaseException as exc:  # handed to the caller below
                outcome["error"] = exc
            finally:
                self._dns_slots.release()
                done.set()

        threading.Thread(target=resolve, name="dyntools-dns", daemon=True).start()
        if not done.wait(max(0.0, deadline - time.monotonic())):
            raise late
        error = outcome.get("error")
        if isinstance(error, OSError | UnicodeError):
            raise HttpFailure(f"the DNS lookup of {host} failed: "
                              f"{getattr(error, 'strerror', None) or error}", kind=DNS) from None
        if error is not None:
            raise error
        answer = outcome.get("answer")
        if not isinstance(answer, list | tuple) or not answer:
            raise HttpFailure(f"the DNS lookup of {host} gave no address", kind=DNS)
        return list(answer)


@dataclass(slots=True)
class _Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(eq=False, slots=True)
class BrokerSession:
    """One call's requests: its request budget, its redaction, its audit identity. The
    policy is the broker's."""

    _broker: HttpBroker
    tool: str
    version: int | None
    declared: Capabilities
    deadline: float
    budget: RequestBudget
    _redactor: Redactor = field(init=False, repr=False)

    def __post_init__(self) -> None:
        broker = self._broker
        self._redactor = Redactor(available_secrets(broker.policy.secrets, broker._environ))

    @property
    def _policy(self) -> CapabilityPolicy:
        return self._broker.policy


    def redact(self, text: str) -> str:
        """`text` with every form of every policy secret replaced by [redacted:NAME]."""
        return self._redactor(text)

    # ------------------------------------------------------------------ one request

    def request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        started = time.monotonic()
        method = request.get("method") if isinstance(request, Mapping) else None
        shown_method = method if method in ("GET", "POST") else "?"
        try:
            return self._request(request, started)
        except CapabilityViolation as exc:
            refused = self._redacted_violation(exc)
            self._emit(shown_method, str(refused.details.get("host", "")), None, 0, started,
                       "violation", None)
            raise refused from None

    def _request(self, request: Mapping[str, Any], started: float) -> dict[str, Any]:
        policy = self._policy
        if not policy.configured:
            raise no_policy("http")
        self.budget.admit()
        shaped = shape_request(request, policy)
        deadline = min(started + policy.timeout_s, self.deadline)
        method, url, body = shaped.method, shaped.url, shaped.body
        headers = list(shaped.headers)
        previous: Target | None = None
        for hop in range(MAX_REDIRECTS + 1):
            try:
                target = check_target(url, self.declared, policy)
                if previous is not None and _origin(previous) != _origin(target):
                    headers = [(k, v) for k, v in headers
                               if k.lower() not in _CROSS_ORIGIN_DROP]
                answer = self._hop(hop, method, target, headers, body, deadline)
            except CapabilityViolation as exc:
                if previous is None:
                    raise
                raise violation(str(exc.details.get("code", checks.BAD_URL)),
                                f"a redirect from {previous.describe()}: {exc.message}",
                                **{k: v for k, v in exc.details.items()
                                   if k not in ("code", "capability")}) from None
            location = _header(answer.headers, "location")
            if answer.status not in REDIRECT_STATUSES or location is None:
                return self._finish(target, answer)
            if hop == MAX_REDIRECTS:
                break
            checks.no_control(location, "a redirect's Location")
            try:
                url = target.url.join(location)
            except (httpx.InvalidURL, ValueError, TypeError, UnicodeError):
                raise self._failure(f"{target.describe()} redirected to a Location that is "
                                    "not a valid URL", PROTOCOL) from None
            if answer.status == 303 or (answer.status in (301, 302) and method == "POST"):
                method, body = "GET", None
                headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
            previous = target
        raise self._failure(f"more than {MAX_REDIRECTS} redirects (the last from "
                            f"{target.describe()})", REDIRECTS)

    def _finish(self, target: Target, answer: _Answer) -> dict[str, Any]:
        text = self.redact(_decode_text(answer.body, _header(answer.headers, "content-type")))
        if answer.status >= 400:
            raise self._failure(f"HTTP {answer.status} from {target.describe()}", STATUS,
                                status=answer.status, text=text)
        headers: dict[str, str] = {}
        for name, value in answer.headers[:MAX_RESPONSE_HEADERS]:
            key = self.redact(name)
            headers[key] = f"{headers[key]}, {self.redact(value)}" if key in headers \
                else self.redact(value)
        return {"status": answer.status, "headers": headers, "text": text}

    # ----------------------------------------------------------------------- one hop

    def _hop(self, index: int, method: str, target: Target, headers: list[tuple[str, str]],
             body: bytes | None, deadline: float) -> _Answer:
        started = time.monotonic()
        status: int | None = None
        received = 0
        try:
            if deadline - started <= 0:
                raise HttpFailure(f"the request's deadline passed before {target.describe()} "
                                  "was reached", kind=TIMEOUT)
            addresses = self._addresses(target, deadline)
            send = self._headers_for(target, headers, body, addresses)
            answer = self._send(method, target, send, body, addresses, deadline)
            status, received = answer.status, len(answer.body)
            if status < 200:  # 101 Switching Protocols and the like: not an answer
                raise HttpFailure(f"{target.describe()} answered with status {status}, which "
                                  "is not a final response", kind=PROTOCOL)
        except HttpFailure as exc:
            failure = self._failure(exc.message, exc.kind, status=exc.status, text=exc.text)
            self._emit(method, target.host, status, received, started, failure.kind, index)
            raise failure from None
        outcome = "redirect" if status in REDIRECT_STATUSES else \
            ("ok" if answer.status < 400 else "http_error")
        self._emit(method, target.host, status, received, started, outcome, index)
        return answer

    def _addresses(self, target: Target, deadline: float) -> tuple[str, ...]:
        """Every address the host has, each checked; the connection uses only these."""
        literal = parse_address(target.host)
        candidates: list[IPAddress] = []
        if literal is not None:
            candidates.append(literal)
        else:
            for text in self._broker._lookup(target.host, target.port, deadline)[:MAX_ADDRESSES]:
                address = parse_address(text) if isinstance(text, str) else None
                if address is None:
                    raise HttpFailure(f"the DNS lookup of {target.host} gave something that "
                                      "is not an address", kind=DNS)
                candidates.append(address)
        for address in candidates:
            problem = address_problem(address, self._policy.allow_private)
            if problem is not None:
                what = "is" if literal is not None else f"resolves to {address}, which is"
                raise violation(checks.PRIVATE, f"{target.describe()} {what} refused: "
                                                f"{problem}; the operator's "
                                                "http.allow_private does not include it",
                                host=target.host, address=str(address))
        return tuple(dict.fromkeys(str(address) for address in candidates))

    def _headers_for(self, target: Target, headers: list[tuple[str, str]],
                     body: bytes | None, addresses: tuple[str, ...]) -> list[tuple[str, str]]:
        """The tool's headers, the host's defaults, and the secrets for this hop's host (a hop
        that carries one takes no tool-set Range or If-Range)."""
        secrets: list[tuple[str, str]] = []
        for name in self.declared.secrets:
            rule = self._policy.secrets.get(name)
            if rule is None or not rule.applies_to(target.host, target.port, target.scheme):
                continue
            if target.scheme != "https" and not self._private_hop(addresses):
                continue  # never in clear text across a public network
            value = secret_value(rule, self._broker._environ)
            formatted = rule.header_value(value)
            self._redactor.add(name, value, formatted)
            secrets.append((rule.header, formatted))
        if secrets:
            headers = [(k, v) for k, v in headers
                       if k.lower().replace("_", "-") not in _PARTIAL_CONTENT]
        send = [("User-Agent", USER_AGENT), ("Accept", "*/*"),
                ("Accept-Encoding", "identity")]
        given = {name.lower() for name, _ in headers}
        send = [(k, v) for k, v in send if k.lower() not in given]
        send.extend(headers)
        if body is not None and "content-type" not in given:
            send.append(("Content-Type", "application/json"))
        send.extend(secrets)
        return send

    def _private_hop(self, addresses: tuple[str, ...]) -> bool:
        nets = self._policy.allow_private
        return bool(nets) and all(
            any(ip.version == net.version and ip in net for net in nets)
            for ip in (parse_address(a) for a in addresses) if ip is not None)

    def _send(self, method: str, target: Target, headers: list[tuple[str, str]],
              body: bytes | None, addresses: tuple[str, ...], deadline: float) -> _Answer:
        built = httpx.Request(method, target.url, headers=headers, content=body)
        remaining = max(0.001, deadline - time.monotonic())
        core = httpcore.Request(
            method=method.encode("ascii"),
            url=httpcore.URL(scheme=target.scheme.encode("ascii"),
                             host=target.host.encode("ascii"), port=target.port,
                             target=target.url.raw_path),
            headers=built.headers.raw, content=body,
            extensions={"timeout": {"connect": remaining, "read": remaining,
                                    "write": remaining, "pool": remaining}})
        hop = Hop({(target.host, target.port): addresses}, deadline)
        token = CURRENT_HOP.set(hop)
        try:
            if method != "GET":
                self.budget.non_get = True  # it may act on the world even if it fails
            response = self._broker._pool.handle_request(core)
            try:
                status = response.status
                raw_headers = [(k.decode("latin-1").lower(), v.decode("latin-1"))
                               for k, v in response.headers]
                content = self._read(response, raw_headers, target)
            finally:
                response.close()
        except UnpinnedConnect as exc:
            raise violation("http.unpinned", f"{target.describe()}: {exc}",
                            host=target.host) from None
        except TlsFailure as exc:
            raise HttpFailure(f"TLS with {target.describe()} failed: {exc}", kind=TLS) from None
        except httpcore.TimeoutException:
            raise HttpFailure(f"{target.describe()} did not answer before the request's "
                              "deadline", kind=TIMEOUT) from None
        except httpcore.ConnectError as exc:
            raise HttpFailure(f"cannot connect to {target.describe()}: {exc}",
                              kind=CONNECTION) from None
        except (httpcore.ProtocolError, httpcore.UnsupportedProtocol) as exc:
            raise HttpFailure(f"{target.describe()} broke the HTTP protocol: {exc}",
                              kind=PROTOCOL) from None
        except (httpcore.NetworkError, OSError) as exc:
            raise HttpFailure(f"the connection to {target.describe()} failed: {exc}",
                              kind=CONNECTION) from None
        finally:
            CURRENT_HOP.reset(token)
        return _Answer(status, raw_headers, content)

    def _read(self, response: httpcore.Response, headers: list[tuple[str, str]],
              target: Target) -> bytes:
        """The body, never past the cap: refused up front on a larger Content-Length, and
        while streaming at the first read that crosses it."""
        cap = self._policy.max_response_bytes
        too_large = HttpFailure(f"the response from {target.describe()} is larger than "
                                f"{cap} bytes", kind=TOO_LARGE)
        length = _header(headers, "content-length")
        if length is not None and length.strip().isdigit() and int(length) > cap:
            raise too_large
        chunks: list[bytes] = []
        total = 0
        for chunk in response.iter_stream():
            total += len(chunk)
            if total > cap:
                raise too_large
            chunks.append(chunk)
        raw = b"".join(chunks)
        encoding = (_header(headers, "content-encoding") or "identity").strip().lower()
        if encoding == "identity":
            return raw
        if encoding not in ("gzip", "x-gzip", "deflate"):
            raise HttpFailure(f"{target.describe()} answered with Content-Encoding "
                              f"{encoding[:40]!r}, which the host does not decode",
                              kind=PROTOCOL)
        return _inflate(raw, encoding, cap, too_large, target)

    # ----------------------------------------------------------------- redaction, audit

    def _failure(self, message: str, kind: str, *, status: int | None = None,
                 text: str = "") -> HttpFailure:
        return HttpFailure(self.redact(message), status, self.redact(text), kind=kind)

    def _redacted_violation(self, exc: CapabilityViolation) -> CapabilityViolation:
        details = {key: self.redact(value) if isinstance(value, str) else value
                   for key, value in exc.details.items()}
        refused = CapabilityViolation(self.redact(exc.message), **details)
        refused.details.setdefault("capability", "http")
        return refused

    def _emit(self, method: str, host: str, status: int | None, received: int,
              started: float, outcome: str, hop: int | None) -> None:
        if self._broker._audit is None:
            return
        self._broker._audit({
            "event": "broker.request", "tool": self.tool, "version": self.version,
            "method": method, "host": self.redact(host), "status": status, "bytes": received,
            "ms": round((time.monotonic() - started) * 1000, 3), "outcome": outcome,
            "hop": hop,
        })


def _origin(target: Target) -> tuple[str, str, int]:
    return target.scheme, target.host, target.port


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    for key, value in headers:
        if key == name:
            return value
    return None


def _inflate(raw: bytes, encoding: str, cap: int, too_large: HttpFailure,
             target: Target) -> bytes:
    """A gzip/deflate body, decompressed no further than the cap (a bomb stops there)."""
    wbits = 16 + zlib.MAX_WBITS if encoding in ("gzip", "x-gzip") else zlib.MAX_WBITS
    for attempt in (wbits, -zlib.MAX_WBITS):  # deflate is sometimes sent raw
        decompressor = zlib.decompressobj(attempt)
        try:
            out = decompressor.decompress(raw, cap + 1)
        except zlib.error:
            if encoding == "deflate" and attempt == wbits:
                continue
            break
        if len(out) > cap or decompressor.unconsumed_tail:
            raise too_large
        return out
    raise HttpFailure(f"the {encoding} body from {target.describe()} does not decompress",
                      kind=PROTOCOL)


# Real character encodings only, by codec name: a server names the charset, and codecs such
# as punycode decode in quadratic time (1 MiB would hold the host for minutes), while others
# (unicode_escape, idna, bytes-to-bytes codecs) are not charsets at all.
_CHARSET = re.compile(r"utf-(?:8|8-sig|16|16-be|16-le|32|32-be|32-le)|ascii|iso8859-\d+|"
                      r"cp\d+|koi8-[a-z]+|mac-[a-z0-9]+|kz1048|ptcp154|hp-roman8|tis-620|"
                      r"shift_jis(?:_2004|x0213)?|euc_[a-z0-9_]+|gb2312|gbk|gb18030|"
                      r"big5(?:hkscs)?|iso2022_[a-z0-9_]+|hz|johab")


def _decode_text(body: bytes, content_type: str | None) -> str:
    """The body as text in the response's charset (UTF-8 when it names none, or one that is
    not a real character encoding); undecodable bytes become U+FFFD."""
    charset = "utf-8"
    if content_type:
        message = Message()
        message["content-type"] = content_type[:512]
        named = message.get_content_charset()
        if named:
            try:
                canonical = codecs.lookup(named).name
            except LookupError:
                canonical = ""
            if _CHARSET.fullmatch(canonical):
                charset = canonical
    return body.decode(charset, errors="replace")
