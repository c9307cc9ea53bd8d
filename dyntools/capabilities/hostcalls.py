"""The host's side of one call's capability requests (see sandbox/worker/hostapi.py for the tool's).

    capabilities = CapabilityHost(policy)   # one per Dyntools: the operator's policy, the broker
    host = capabilities.live(tool="page_title", version=3, declared=caps, tools=catalog_caller)
    pool.call(params, host=host)          # the runner hands every request frame to `host`
    result = host.redact(result)          # no secret leaves in a result
    host.problems                         # at verification: requests that were not recorded

The operator's policy is held by the CapabilityHost (EMPTY_POLICY when there is none), and
each call's HostCalls reads it there; the call's requests, HTTP and composed tools alike, are
counted by one RequestBudget, which the call's HTTP session shares.

A worker is untrusted, so every frame is checked here before anything acts on it: a frame
that is not what the stubs send, a capability the tool does not declare or the operator's
policy does not grant, a composed-tool chain that is too deep or loops, each raises
CapabilityViolation, which ends the call and kills the worker. Ordinary failures (a timeout,
a 4xx, a composed tool that failed) are answered to the tool as an error it may catch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from dyntools.base.closing import OnDemand
from dyntools.capabilities.policy import (
    EMPTY_POLICY,
    CapabilityPolicy,
    RequestBudget,
    no_policy,
)
from dyntools.errors import CapabilityViolation, DyntoolsError
from dyntools.gate.capabilities import Capabilities, Exchange

if TYPE_CHECKING:
    from dyntools.capabilities.recording import Recording

MAX_TOOL_DEPTH = 4  # a tool that composes a tool that composes ... at most this deep
MAX_URL_CHARS = 8192
MAX_PAIRS = 64


class HttpSession(Protocol):
    """A broker session (real requests) or a replay session (recorded exchanges), counting
    its requests with the call's RequestBudget."""

    def request(self, request: Mapping[str, Any]) -> dict[str, Any]: ...

    def redact(self, text: str) -> str: ...


class ReplayHttp(HttpSession, Protocol):
    """A session that answers from an example's recorded exchanges."""

    def unused(self) -> list[Exchange]: ...


# (name, params, timeout_s, chain of the tools already calling) -> the composed tool's result
ToolCaller = Callable[[str, dict[str, Any], float, tuple[str, ...]], dict[str, Any]]
# (the call's deadline, its request budget) -> a session
SessionFactory = Callable[[float, RequestBudget], HttpSession]


class HostCalls:
    """Answers the request frames of ONE call, under the policy its CapabilityHost holds.
    `http` makes the HTTP session on the first request (given the call's deadline and its
    budget; none: no HTTP is granted); `replay` answers from recorded exchanges instead;
    `tools` runs a composed tool; `chain` lists the tools already waiting on this call
    (outermost first), for the depth and cycle checks."""

    def __init__(
        self,
        capabilities: CapabilityHost,
        *,
        tool: str,
        version: int | None,
        declared: Capabilities,
        http: SessionFactory | None = None,
        replay: Callable[[RequestBudget], ReplayHttp] | None = None,
        tools: ToolCaller | None = None,
        chain: tuple[str, ...] = (),
        read_only: bool = False,
    ) -> None:
        self.capabilities = capabilities
        self.tool = tool
        self.version = version
        self.declared = declared
        self.budget = RequestBudget(capabilities.policy)
        self._replay = replay(self.budget) if replay is not None else None
        self._http_factory = http
        self._http: HttpSession | None = self._replay
        self.replaying = replay is not None
        self._tools = tools
        self.chain = chain
        self.read_only = read_only  # only GETs: a tool composed during a verification
        self.problems: list[str] = []

    @property
    def policy(self) -> CapabilityPolicy:
        return self.capabilities.policy

    @property
    def non_get(self) -> bool:
        """A request that may have acted on the world was sent."""
        return self.budget.non_get

    def __call__(self, request: Any, deadline: float) -> dict[str, Any]:
        if not isinstance(request, dict):
            raise self._violation("the worker sent a request frame that is not an object")
        op = request.get("op")
        if op == "http":
            return self._http_request(request, deadline)
        if op == "call_tool":
            return self._call_tool(request, deadline)
        raise self._violation(f"the worker sent an unknown request {str(op)[:40]!r}")

    # ------------------------------------------------------------------------------ http

    def _http_request(self, request: dict[str, Any], deadline: float) -> dict[str, Any]:
        checked = _checked_http_frame(request)
        if checked is None:
            raise self._violation("the worker sent a malformed http request frame")
        if not self.declared.http:
            raise self._violation("the tool made an HTTP request but declares no http hosts "
                                  "in CAPABILITIES", capability="http")
        if self._http is None and self._http_factory is None:
            raise self._located(no_policy("http"))
        if self.read_only and checked["method"] != "GET":
            # Verification reads the world at most: a composed tool may not act on it.
            return {"error": {"kind": "http", "message": "a request that is not a GET is "
                              "refused while a composing tool is verified", "status": None,
                              "text": "", "failure": "read_only"}}
        if self._http is None:
            assert self._http_factory is not None  # checked above
            self._http = self._http_factory(deadline, self.budget)
        from dyntools.capabilities.failures import HttpFailure, ReplayMismatch

        try:
            return {"ok": self._http.request(checked)}  # which admits it to the budget
        except CapabilityViolation as exc:
            raise self._located(exc) from None
        except HttpFailure as failure:
            return {"error": {"kind": "http", "message": failure.message,
                              "status": failure.status, "text": failure.text,
                              "failure": failure.kind}}
        except ReplayMismatch as mismatch:
            # Verification: the example fails whatever the tool does next; the tool gets an
            # error so that the call ends in the ordinary way and the worker is kept.
            self.problems.append(mismatch.message)
            return {"error": {"kind": "http", "message": "this request was not recorded in "
                              "the example: " + mismatch.message, "status": None, "text": "",
                              "failure": "not_recorded"}}

    # ------------------------------------------------------------------------ call_tool

    def _call_tool(self, request: dict[str, Any], deadline: float) -> dict[str, Any]:
        name, params = request.get("name"), request.get("params")
        if set(request) != {"op", "name", "params"} or not isinstance(name, str) or \
                not isinstance(params, dict):
            raise self._violation("the worker sent a malformed call_tool request frame")
        shown = repr(name[:64])
        if name not in self.declared.tools:
            raise self._violation(f"the tool called {shown}, which its CAPABILITIES do not "
                                  "declare", capability="tools", target=name[:64])
        policy = self.policy
        if policy.configured and name not in policy.tools_allow:
            raise self._violation(f"the operator's capability policy does not allow "
                                  f"composing {shown} ([tools] allow)", capability="tools",
                                  target=name)
        if not policy.configured and not self.replaying:
            raise self._located(no_policy("tools"))
        chain = (*self.chain, self.tool)
        if name in chain:
            raise self._violation(f"call_tool {shown} would loop: {' -> '.join(chain)} -> "
                                  f"{name}", capability="tools", target=name)
        if len(chain) >= MAX_TOOL_DEPTH:
            raise self._violation(f"call_tool {shown} is past the depth limit of "
                                  f"{MAX_TOOL_DEPTH}: {' -> '.join(chain)}",
                                  capability="tools", target=name)
        if self._tools is None:
            raise self._violation("this call has no catalog to compose tools from",
                                  capability="tools")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return {"error": {"kind": "tool", "reason": "timeout",
                              "message": "no time is left in the call's budget"}}
        try:
            self.budget.admit()
        except CapabilityViolation as exc:
            raise self._located(exc) from None
        try:
            return {"ok": self._tools(name, params, remaining, chain)}
        except DyntoolsError as exc:
            return {"error": {"kind": "tool", "reason": exc.reason,
                              "message": self.redact(f"{name}: {exc.message}")}}

    # ------------------------------------------------------------------------ redaction

    def replay_problems(self) -> list[str]:
        """At verification: requests that were not recorded, then recorded exchanges the
        tool never requested. Empty for a real call."""
        problems = list(self.problems)
        if self._replay is not None:
            problems.extend(f"the recorded {exchange.method} {exchange.url[:200]} was never "
                            "requested" for exchange in self._replay.unused())
        return problems

    def redact(self, value: Any) -> Any:
        """`value` (a result, a message) with every secret this call's session knows
        replaced; a call that made no HTTP request has nothing to redact."""
        session = self._http
        if session is None:
            return value
        return _redact(value, session.redact)

    def _violation(self, message: str, **details: Any) -> CapabilityViolation:
        return CapabilityViolation(message, tool=self.tool, version=self.version, **details)

    def _located(self, exc: CapabilityViolation) -> CapabilityViolation:
        """`exc` with this call's tool and version in its details."""
        return CapabilityViolation(exc.message, **{**exc.details, "tool": self.tool,
                                                   "version": self.version})


def _redact(value: Any, redact: Callable[[str], str]) -> Any:
    """A copy of `value` with `redact` applied to every string in it, keys included.
    Iterative: a tool's result may nest as deeply as the JSON decoder allows, which is
    deeper than a recursive walk gets (a RecursionError here escaped every caller)."""
    def shell(item: Any) -> dict[Any, Any] | list[Any] | None:
        return {} if isinstance(item, dict) else [] if isinstance(item, list) else None

    top = shell(value)
    if top is None:
        return redact(value) if isinstance(value, str) else value
    stack: list[tuple[Any, dict[Any, Any] | list[Any]]] = [(value, top)]
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in pairs:
            inner = shell(item)
            copied = inner if inner is not None else (
                redact(item) if isinstance(item, str) else item)
            if isinstance(target, dict):
                target[redact(key) if isinstance(key, str) else key] = copied
            else:
                target.append(copied)
            if inner is not None:
                stack.append((item, inner))
    return top


redact_value = _redact  # what the pipeline keeps of a failed call is redacted the same way


def _checked_http_frame(request: dict[str, Any]) -> dict[str, Any] | None:
    """The http frame as the stubs build it, or None: anything else is not from them."""
    method = request.get("method")
    keys = set(request)
    if method == "GET":
        if keys != {"op", "method", "url", "params", "headers"}:
            return None
    elif method == "POST":
        if keys != {"op", "method", "url", "json", "headers"}:
            return None
    else:
        return None
    url = request.get("url")
    if not isinstance(url, str) or len(url) > MAX_URL_CHARS:
        return None
    for key in ("params", "headers"):
        pairs = request.get(key)
        if pairs is not None and not (
                isinstance(pairs, dict) and len(pairs) <= MAX_PAIRS
                and all(isinstance(k, str) and isinstance(v, str) for k, v in pairs.items())):
            return None
    checked = {key: value for key, value in request.items() if key != "op"}
    checked.setdefault("params", None)
    return checked


class CapabilityHost:
    """One Dyntools' capability side: the operator's policy (the one place it is held;
    EMPTY_POLICY when none is configured, and then every live request is refused), the
    broker (made on first use) and, per call, the HostCalls that answers a capability tool's
    requests."""

    def __init__(self, policy: CapabilityPolicy = EMPTY_POLICY) -> None:
        self.policy = policy
        self._broker: OnDemand[Any] = OnDemand(self._make_broker)

    def live(self, *, tool: str, version: int | None, declared: Capabilities,
             tools: ToolCaller, chain: tuple[str, ...] = (),
             read_only: bool = False, record: Recording | None = None) -> HostCalls:
        """The host for a real call: HTTP through the broker, tools through `tools`; with
        `record`, every exchange is kept there as well (`dyntools record`, recording.py)."""
        http: SessionFactory | None = None
        if self.policy.configured and declared.http:
            broker = self._broker.get()
            policy = self.policy

            def http(deadline: float, budget: RequestBudget) -> HttpSession:
                session: HttpSession = broker.session(tool=tool, version=version,
                                                      declared=declared, deadline=deadline,
                                                      budget=budget)
                if record is not None:
                    from dyntools.capabilities.recording import RecordingSession

                    return RecordingSession(session, record, policy)
                return session

        return HostCalls(self, tool=tool, version=version, declared=declared, http=http,
                         tools=tools, chain=chain, read_only=read_only)

    def replaying(self, *, tool: str, version: int | None, declared: Capabilities,
                  tools: ToolCaller) -> Callable[[Any], HostCalls]:
        """`host_for(example)` at verification: HTTP from the example's recorded exchanges
        (never the network), tools through `tools` (the real catalog)."""
        def host_for(example: Any) -> HostCalls:
            from dyntools.capabilities.replay import ReplaySession

            def replay(budget: RequestBudget) -> ReplayHttp:
                return ReplaySession(example.http, declared=declared, policy=self.policy,
                                     tool=tool, version=version, budget=budget)

            return HostCalls(self, tool=tool, version=version, declared=declared,
                             replay=replay, tools=tools)

        return host_for

    def _make_broker(self) -> Any:
        from dyntools.base.log import get_logger
        from dyntools.capabilities.broker import HttpBroker

        log = get_logger("broker")

        def audit(event: Mapping[str, Any]) -> None:
            fields = dict(event)
            log.info(str(fields.pop("event", "broker.request")), **fields)

        return HttpBroker(self.policy, audit=audit)

    def broker(self) -> Any:
        """The HTTP broker of this policy (made on first use)."""
        return self._broker.get()

    def close(self) -> None:
        self._broker.close()
