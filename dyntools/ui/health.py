"""The page's /health: the registry's health report (`Dyntools.health()`, what `dyntools
health --json` prints), laid out evidence first as every review page is (review.html).

    GET  /health   the last report this page made, or an offer to make one
    POST /health   make one now (the Guard has checked the session and the CSRF token), then
                   show it; one at a time

Making one re-verifies every served version in the sandbox: it runs tool code exactly as
`dyntools health` does, reads the audit log this page follows, and changes nothing served.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from dyntools.errors import DyntoolsError

_RUNNING = threading.Lock()


def health_page(request: Request) -> HTMLResponse:
    from dyntools.ui.routes import _ui, render

    ui = _ui(request)
    report, made = ui.health or (None, None)
    return render(request, "health.html", report=report, made=_when(made),
                  running=_RUNNING.locked(), error=ui.health_error)


async def health_run(request: Request) -> Response:
    from dyntools.ui.routes import _ui, render

    ui = _ui(request)
    if not _RUNNING.acquire(blocking=False):
        return render(request, "error.html", 409, status=409, code="health/running",
                      message="a health check is running already: reload this page in a "
                              "moment", verification=None, findings=None)
    try:
        report = await run_in_threadpool(_make, ui)
    finally:
        _RUNNING.release()
    if isinstance(report, DyntoolsError):
        ui.health_error = f"{report.station}/{report.reason}: {report.message}"
    else:
        ui.health, ui.health_error = (report, time.time()), None
    return RedirectResponse("/health", status_code=303)


def _make(ui: Any) -> dict[str, Any] | DyntoolsError:
    try:
        report: dict[str, Any] = ui.dyntools.health(audit_log=ui.feed.path)
    except DyntoolsError as exc:
        return exc
    return report


def _when(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    from datetime import UTC, datetime

    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
