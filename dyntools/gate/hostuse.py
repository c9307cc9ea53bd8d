"""A tool uses only what it declares: the `host` module against its CAPABILITIES.

The visitor records where a dyntools-provided module (`host`) is imported and where its
members are used (with the call, when the use is a call); this module checks those uses
against the file's CAPABILITIES declaration:

    DT209  `host` is imported but the file declares no CAPABILITIES
    DT403  a member is used without the capability it needs ([modules.host.requires])
    DT404  call_tool("name", ...) names a tool the declaration does not list (or itself)
    DT405  http_get / http_post_json with a literal URL (or an f-string whose literal head
           holds scheme://host/) that is not an absolute http(s) URL on a declared host

The URL rules are what the gate can see; the host's broker enforces the declaration on every
request at run time whatever the URL is built from.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import NamedTuple

from dyntools.gate.capabilities import DEFAULT_PORTS, Capabilities
from dyntools.gate.policy import Policy

Report = Callable[[ast.AST, str, str], None]

# The host module's API (docs in allowlist.toml): which members take a URL or a tool name
# as their first argument, and the keyword that may carry it instead.
URL_MEMBERS = {"http_get": "url", "http_post_json": "url"}
TOOL_MEMBERS = {"call_tool": "name"}


class HostUse(NamedTuple):
    """One use of a member of a dyntools-provided module. `imported` marks a
    `from host import member`; `call` is the call when the use is the callee."""

    module: str
    member: str
    node: ast.AST
    call: ast.Call | None = None
    imported: bool = False


def check_host_use(
    policy: Policy,
    imports: list[ast.stmt],
    uses: list[HostUse],
    declared: bool,
    capabilities: Capabilities | None,
    own_name: str | None,
    report: Report,
) -> None:
    """`declared`: the file has a CAPABILITIES constant; `capabilities`: what it parsed to
    (None when it did not parse: that is its own finding, DT515)."""
    if not imports and not uses:
        return
    if not declared:
        for stmt in imports:
            report(stmt, "DT209", f"{_module_of(stmt)} is provided by dyntools for tools that "
                   "declare what they reach: add CAPABILITIES = {'http': ['api.example.com']} "
                   "(or 'tools': [...]) naming exactly the hosts and tools this file uses")
        return
    if capabilities is None:
        return
    for use in uses:
        kind = policy.modules[use.module].requires.get(use.member)
        if kind is not None and not getattr(capabilities, kind):
            # A name bound by `from host import member` is reported once, at its import.
            if not isinstance(use.node, ast.Name):
                report(use.node, "DT403", f"{use.module}.{use.member} needs "
                       f"CAPABILITIES[{kind!r}] to list what it reaches; it is empty or "
                       "missing")
            continue
        if use.call is None:
            continue
        if use.member in TOOL_MEMBERS:
            _check_tool_name(use, capabilities, own_name, report)
        elif use.member in URL_MEMBERS:
            _check_url_argument(use, capabilities, report)


def _module_of(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.ImportFrom):
        return stmt.module or "host"
    if isinstance(stmt, ast.Import):
        return stmt.names[0].name.split(".", 1)[0]
    return "host"


def _argument(call: ast.Call, keyword: str) -> ast.expr | None:
    if call.args:
        first = call.args[0]
        return None if isinstance(first, ast.Starred) else first
    for item in call.keywords:
        if item.arg == keyword:
            return item.value
    return None


def _check_tool_name(use: HostUse, capabilities: Capabilities, own_name: str | None,
                     report: Report) -> None:
    assert use.call is not None
    node = _argument(use.call, TOOL_MEMBERS[use.member])
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return  # the host checks a computed name against the declaration at run time
    name = node.value
    if own_name is not None and name == own_name:
        report(node, "DT404", f"{use.member}({name!r}) calls this tool itself; a tool may not "
               "call itself")
    elif name not in capabilities.tools:
        declared = ", ".join(capabilities.tools) or "none"
        report(node, "DT404", f"{use.member}({name[:80]!r}): the tool is not in "
               f"CAPABILITIES['tools'] (declared: {declared})")


def _check_url_argument(use: HostUse, capabilities: Capabilities, report: Report) -> None:
    assert use.call is not None
    node = _argument(use.call, URL_MEMBERS[use.member])
    if node is None:
        return
    known = _literal_head(node)
    if known is None:
        return
    text, complete = known
    problem = url_problem(text, capabilities, complete=complete)
    if problem is not None:
        report(node, "DT405", f"{use.module}.{use.member}: {problem}")


def _literal_head(node: ast.expr) -> tuple[str, bool] | None:
    """The URL text the gate can see: a whole string literal (complete), or the literal
    start of an f-string or of `"literal" + ...` (not complete)."""
    if isinstance(node, ast.Constant):
        return (node.value, True) if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        first = node.values[0] if node.values else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value, False
        return ("", False) if first is not None else ("", True)
    depth = 0
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and depth < 50:
        node, depth = node.left, depth + 1
    if depth and isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, False
    return None


def url_problem(url: str, capabilities: Capabilities, *, complete: bool = True) -> str | None:
    """Why a request to `url` (or to a URL that starts with it, when not `complete`) is not
    one the declaration allows, or None (also when too little of it is known)."""
    lowered = url[:8].lower()
    scheme = next((s for s in DEFAULT_PORTS if lowered.startswith(f"{s}://")), None)
    shown = repr(url[:80])
    if scheme is None:
        if not complete and any(f"{s}://".startswith(lowered) for s in DEFAULT_PORTS):
            return None  # "ht" + ...: the scheme is not written yet
        return f"the URL {shown} is not an absolute http:// or https:// URL"
    rest = url[len(scheme) + 3:]
    cut = min((rest.find(c) for c in "/?#\\" if c in rest), default=-1)
    if cut < 0 and not complete:
        return None  # the host is not all written: the broker checks it at run time
    authority = rest if cut < 0 else rest[:cut]
    if "@" in authority:
        return f"the URL {shown} carries userinfo ('@'); the host refuses such URLs"
    from urllib.parse import urlsplit  # only for a file that requests a literal URL

    try:
        parts = urlsplit(f"{scheme}://{authority}/")
        host = parts.hostname
        port = parts.port if parts.port is not None else DEFAULT_PORTS[scheme]
    except ValueError as exc:
        return f"the URL {shown} is not valid: {exc}"
    if not host:
        return f"the URL {shown} names no host"
    if capabilities.allows_http(host, port, scheme):
        return None
    declared = ", ".join(str(rule) for rule in capabilities.http) or "none"
    return (f"{host}:{port} ({scheme}) is not declared in CAPABILITIES['http'] "
            f"(declared: {declared})")
