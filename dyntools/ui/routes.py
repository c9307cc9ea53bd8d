"""The pages and endpoints. Reads are GET, writes are POST (the Guard has already checked the
Host, the session and, for a POST, the Origin and the CSRF token before any of this runs).

Bad input never reaches a traceback: an unknown tool or version is a 404 page, a bad form
a 400 page, a decision the registry refuses the same error the CLI prints, as a page.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)

from dyntools.base.log import get_logger
from dyntools.base.toolname import tool_name_problem
from dyntools.errors import (
    ChainMismatch,
    DyntoolsError,
    GateRejected,
    LayerUnavailable,
    NoChain,
    PendingApproval,
    PersistError,
    RunTampered,
    SigningKeyRequired,
    TrustStateError,
    UnknownRun,
    UnknownTool,
    UnknownVersion,
    UsageError,
    VerificationFailed,
    VersionUnusable,
)
from dyntools.gate.findings import RULES
from dyntools.registry.core import default_approver
from dyntools.ui import queries
from dyntools.ui.decisions import ACTIONS, decide
from dyntools.ui.render import source_lines
from dyntools.ui.runs import CALL, DECISION, ENSURE
from dyntools.ui.security import BodyTooLarge
from dyntools.ui.state import UiState

POLL_SECONDS = 0.25
KEEPALIVE_SECONDS = 15.0
MAX_STREAMS = 16
MAX_QUERY_CHARS = 500
SCRIPT_PAGE = re.compile(r"/scripts/[0-9a-f]{16}")
DONE = {"approve": "approved", "reject": "rejected", "activate": "activated",
        "rollback": "rolled back", "retire": "retired"}


def _ui(request: Request) -> UiState:
    ui: UiState = request.app.state.ui
    return ui


def _authed(request: Request) -> bool:
    session = _ui(request).session
    return session.token_ok(session.from_cookies(request.headers.get("cookie")))


def render(request: Request, template: str, http_status: int = 200,
           **context: Any) -> HTMLResponse:
    ui = _ui(request)
    html = ui.templates.get_template(template).render(
        csrf=ui.session.csrf if _authed(request) else "",
        registry_root=str(ui.registry.root), path=request.url.path,
        **_weaker_sandbox(ui), **context)
    return HTMLResponse(html, status_code=http_status)


def _weaker_sandbox(ui: Any) -> dict[str, Any]:
    """The banner every page shows when the operator allowed a sandbox below the minimum."""
    from dyntools.sandbox.minimum import ALLOW_WEAKER_ENV, MINIMUM_TEXT

    allowed = bool(ui.dyntools.allow_weaker_sandbox)
    return {"weaker_sandbox": allowed, "minimum_text": MINIMUM_TEXT,
            "weaker_source": ("--allow-weaker-sandbox" if ui.weaker_sandbox_flag
                              else f"{ALLOW_WEAKER_ENV}=1")}


def status_for(error: DyntoolsError) -> int:
    if isinstance(error, UnknownTool | UnknownVersion | UnknownRun):
        return 404
    if isinstance(error, SigningKeyRequired):
        return 403  # this page may not decide: it has no trusted key
    if isinstance(error, ChainMismatch | NoChain | RunTampered):
        return 409  # what is kept disagrees with what vouches for it
    if isinstance(error, TrustStateError):
        return 503
    if isinstance(error, VerificationFailed | GateRejected):
        return 422
    if isinstance(error, PendingApproval | VersionUnusable):
        return 409
    if isinstance(error, UsageError):
        return 400
    if isinstance(error, PersistError | LayerUnavailable):
        return 503  # the host cannot do it now (a read-only registry, a sandbox below minimum)
    return 500


def _name(request: Request) -> str:
    name = request.path_params["name"]
    if tool_name_problem(name) is not None:
        raise HTTPException(404, f"there is no tool named {name[:80]!r}: "
                                 f"{tool_name_problem(name)}")
    return str(name)


def _error_page(request: Request, error: DyntoolsError) -> HTMLResponse:
    verification = error.details.get("verification")
    findings = error.details.get("findings") if isinstance(error, GateRejected) else None
    return render(request, "error.html", status_for(error), status=status_for(error),
                  code=f"{error.station}/{error.reason}", message=error.message,
                  verification=verification if isinstance(verification, dict) else None,
                  findings=findings if isinstance(findings, list) else None)


# ---------------------------------------------------------------------------- sessions


def login_page(request: Request) -> HTMLResponse:
    return render(request, "login.html", error=None)


async def login(request: Request) -> Response:
    ui = _ui(request)
    form = await request.form(max_files=0, max_fields=4, max_part_size=8192)
    token = form.get("token")
    if not isinstance(token, str) or not ui.session.token_ok(token.strip()):
        get_logger("ui").warning("ui.login_refused")
        return render(request, "login.html", 401,
                      error="that is not this server's session token")
    response = RedirectResponse("/", status_code=303)
    response.headers["set-cookie"] = ui.session.cookie_header()
    return response


async def logout(request: Request) -> Response:
    response = RedirectResponse("/login", status_code=303)
    response.headers["set-cookie"] = _ui(request).session.clear_cookie_header()
    return response


# ---------------------------------------------------------------------------- registry


def registry_page(request: Request) -> HTMLResponse:
    ui = _ui(request)
    query = request.query_params.get("q", "")[:MAX_QUERY_CHARS]
    status = request.query_params.get("status", "")
    if status not in (*queries.STATUSES, queries.UNRECORDED):
        status = ""
    rows = queries.registry_rows(ui, query=query, status=status)
    return render(request, "registry.html", rows=rows, query=query, status=status,
                  statuses=(*queries.STATUSES, queries.UNRECORDED),
                  counts=queries.status_counts(ui), approval=ui.registry.approval,
                  searched=bool(query.strip()))


def tool_page(request: Request) -> Response:
    ui = _ui(request)
    name = _name(request)
    try:
        state = ui.registry.tool(name)
    except DyntoolsError as exc:
        return _error_page(request, exc)
    versions = sorted(state.records) or sorted(
        u.version for u in state.unrecorded if u.version is not None)
    if state.current is None and not versions:
        return render(request, "error.html", 404, status=404, code="registry/no_versions",
                      message=f"tool {name!r} has no versions" + (
                          f": {state.error}" if state.error else ""),
                      verification=None, findings=None)
    target = state.current if state.current is not None else versions[-1]
    return RedirectResponse(f"/tools/{name}/v/{target}", status_code=303)


def version_page(request: Request) -> HTMLResponse:
    ui = _ui(request)
    name = _name(request)
    version = request.path_params["version"]
    try:
        view = queries.version_view(ui, name, version)
    except DyntoolsError as exc:
        return _error_page(request, exc)
    done = request.query_params.get("done", "")
    return render(request, "version.html", view=view,
                  lines=source_lines(view.text, view.findings) if view.text is not None else [],
                  done=DONE.get(done), signer=ui.signer is not None,
                  trusted=ui.registry.trusted_keys is not None,
                  chain=ui.registry.tool(name).chain,
                  by_default=default_approver(), destructive=queries.DESTRUCTIVE,
                  rules={code: rule.title for code, rule in RULES.items()})


def diff_page(request: Request) -> HTMLResponse:
    ui = _ui(request)
    name = _name(request)
    try:
        a, b = int(request.query_params.get("a", "")), int(request.query_params.get("b", ""))
    except ValueError:
        raise HTTPException(400, "a diff needs two version numbers: ?a=1&b=2") from None
    try:
        state = ui.registry.tool(name)
        old_status, old = queries.version_source(ui, name, a)
        new_status, new = queries.version_source(ui, name, b)
    except DyntoolsError as exc:
        return _error_page(request, exc)
    rows = queries.diff_rows(old, new)
    others = tuple(sorted({*state.records, *(u.version for u in state.unrecorded
                                             if u.version is not None)}))
    return render(request, "diff.html", name=name, a=a, b=b, old_status=old_status,
                  new_status=new_status, rows=rows, counts=queries.diff_counts(rows),
                  others=others, current=state.current)


async def decision(request: Request) -> Response:
    ui = _ui(request)
    name = _name(request)
    version = request.path_params["version"]
    action = request.path_params["action"]
    if action not in ACTIONS:
        raise HTTPException(404, f"there is no decision {action[:40]!r}; one of "
                                 f"{', '.join(ACTIONS)}")
    form = await request.form(max_files=0, max_fields=16, max_part_size=64 * 1024)
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    try:
        outcome = await run_in_threadpool(decide, ui, action, name, version, fields)
    except DyntoolsError as exc:
        get_logger("ui").info("ui.decision_refused", tool=name, version=version,
                              action=action, reason=exc.reason)
        return render(request, "decision_failed.html", status_for(exc),
                      name=name, version=version, action=action,
                      code=f"{exc.station}/{exc.reason}", message=exc.message,
                      verification=exc.details.get("verification")
                      if isinstance(exc.details.get("verification"), dict) else None,
                      findings=exc.details.get("findings")
                      if isinstance(exc, GateRejected) else None)
    back = fields.get("return_to", "")
    if SCRIPT_PAGE.fullmatch(back):  # a script run's page, nothing else (no open redirect)
        return RedirectResponse(f"{back}?done={action}", status_code=303)
    return RedirectResponse(f"/tools/{name}/v/{outcome.record.version}?done={action}",
                            status_code=303)


# ------------------------------------------------------------------------------ scripts


def scripts_page(request: Request) -> HTMLResponse:
    from dyntools.ui.scripts import script_rows

    return render(request, "scripts.html", rows=script_rows(_ui(request)))


def script_page(request: Request) -> HTMLResponse:
    from dyntools.ui.scripts import script_view

    ui = _ui(request)
    try:
        view = script_view(ui, request.path_params["run_id"])
    except DyntoolsError as exc:
        return _error_page(request, exc)
    done = request.query_params.get("done", "")
    return render(request, "script.html", view=view,
                  lines=source_lines(view.record.source, view.findings),
                  done=DONE.get(done), by_default=default_approver())


# -------------------------------------------------------------------------------- runs


def _kinds(request: Request) -> frozenset[str]:
    if request.query_params.get("show") == "all":
        return frozenset({ENSURE, CALL, DECISION})
    return frozenset({ENSURE, DECISION})


def runs_page(request: Request) -> HTMLResponse:
    ui = _ui(request)
    ui.feed.poll()
    tool = request.query_params.get("tool") or None
    if tool is not None and tool_name_problem(tool) is not None:
        tool = None
    kinds = _kinds(request)
    return render(request, "runs.html", runs=ui.feed.runs(kinds=kinds, tool=tool),
                  seq=ui.feed.seq, show_all=CALL in kinds, tool=tool,
                  audit_path=str(ui.feed.path), skipped=ui.feed.skipped)


async def runs_stream(request: Request) -> Response:
    ui = _ui(request)
    try:
        since = max(int(request.query_params.get("since", "0")), 0)
    except ValueError:
        raise HTTPException(400, "since must be a whole number") from None
    if ui.streams >= MAX_STREAMS:
        raise HTTPException(503, f"at most {MAX_STREAMS} live timelines at once")
    kinds = _kinds(request)
    tool = request.query_params.get("tool") or None
    template = ui.templates.get_template("_run.html")

    async def events() -> AsyncIterator[str]:
        last, quiet = since, 0.0
        yield "retry: 2000\n\n"
        while not await request.is_disconnected():
            await anyio.to_thread.run_sync(ui.feed.poll)
            changed = ui.feed.changed_since(last, kinds)
            for run in changed:
                last = max(last, run.seq)
                if tool is not None and run.tool != tool:
                    continue
                payload = json.dumps({"id": run.id, "html": template.render(run=run)})
                yield f"event: run\ndata: {payload}\n\n"
            quiet = 0.0 if changed else quiet + POLL_SECONDS
            if quiet >= KEEPALIVE_SECONDS:
                quiet = 0.0
                yield ": keepalive\n\n"
            await anyio.sleep(POLL_SECONDS)

    # Counted from here, in the same step as the check (counted only once the stream was
    # iterated, any number of streams opened at once all passed the check), and released
    # when the response ends, however it ends.
    ui.streams += 1
    return _CountedStream(ui, events(), media_type="text/event-stream",
                          headers={"cache-control": "no-store"})


class _CountedStream(StreamingResponse):
    """A live timeline that gives its slot back when its response ends."""

    def __init__(self, ui: UiState, content: AsyncIterator[str], **options: Any) -> None:
        super().__init__(content, **options)
        self._ui = ui

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._ui.streams -= 1


# ------------------------------------------------------------------------------- bench


def bench_page(request: Request) -> HTMLResponse:
    return render(request, "bench.html", max_bytes=_ui(request).registry.policy.limits.max_bytes)


async def bench_check(request: Request) -> Response:
    """The gate on the posted text; nothing is written or kept."""
    ui = _ui(request)
    limit = ui.registry.policy.limits.max_bytes
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            break  # one byte over is enough for the gate's size finding
    data = bytes(body[:limit + 1])
    findings = await run_in_threadpool(queries.gate_findings, ui, data, "bench.py")
    html = ""
    if len(data) <= limit:
        html = ui.templates.get_template("_source.html").render(
            lines=source_lines(data.decode("utf-8", "replace"), findings))
    else:
        html = ui.templates.get_template("_findings.html").render(findings=findings)
    return JSONResponse({"accepted": not findings, "count": len(findings),
                         "codes": sorted({f["code"] for f in findings}),
                         "bytes": len(data), "html": html})


# ------------------------------------------------------------------------------ errors


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return render(request, "error.html", exc.status_code, status=exc.status_code,
                  code={404: "not_found", 405: "method_not_allowed", 400: "bad_request",
                        503: "unavailable"}.get(exc.status_code, "error"),
                  message=str(exc.detail), verification=None, findings=None)


async def server_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, BodyTooLarge):
        return render(request, "error.html", 413, status=413, code="too_large",
                      message=str(exc), verification=None, findings=None)
    if isinstance(exc, DyntoolsError):
        return _error_page(request, exc)
    get_logger("ui").error("ui.internal_error", path=request.url.path[:200],
                           error=f"{type(exc).__name__}: {exc}"[:500])
    try:
        return render(request, "error.html", 500, status=500, code="internal_error",
                      message="the page failed; the server log has the details",
                      verification=None, findings=None)
    except Exception:  # the error page itself failed: still no traceback for the browser
        return PlainTextResponse("500 internal_error: the page failed", status_code=500)
