"""The ASGI app over a running page's state (`dyntools.ui.state.UiState`).

    app = create_app(ui, hosts=allowed_hosts(sock, host))   # Guard(Starlette(...))
"""

from __future__ import annotations

import threading
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from dyntools.ui.security import Guard
from dyntools.ui.state import UiState

STATIC = Path(__file__).parent / "static"


def create_app(ui: UiState, *, hosts: frozenset[str] | None) -> Guard:
    from dyntools.ui import health, routes

    app = Starlette(
        routes=[
            Route("/", routes.registry_page),
            Route("/login", routes.login_page, methods=["GET"]),
            Route("/login", routes.login, methods=["POST"]),
            Route("/logout", routes.logout, methods=["POST"]),
            Route("/tools/{name}", routes.tool_page),
            Route("/tools/{name}/v/{version:int}", routes.version_page),
            Route("/tools/{name}/v/{version:int}/{action}", routes.decision, methods=["POST"]),
            Route("/tools/{name}/diff", routes.diff_page),
            Route("/scripts", routes.scripts_page),
            Route("/scripts/{run_id}", routes.script_page),
            Route("/runs", routes.runs_page),
            Route("/runs/stream", routes.runs_stream),
            Route("/health", health.health_page, methods=["GET"]),
            Route("/health", health.health_run, methods=["POST"]),
            Route("/bench", routes.bench_page),
            Route("/bench/check", routes.bench_check, methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        exception_handlers={HTTPException: routes.http_error, Exception: routes.server_error},
    )
    app.state.ui = ui
    # Read what the registry page shows once, in the background, so the first visit does
    # not pay for reading and parsing every tool's file.
    threading.Thread(target=_warm, args=(ui,), name="dyntools-ui-warm", daemon=True).start()
    return Guard(app, ui.session, hosts)


def _warm(ui: UiState) -> None:
    from dyntools.base.log import get_logger
    from dyntools.ui.queries import registry_rows

    try:
        registry_rows(ui)
    except Exception as exc:  # a cache fill only: the page reports problems itself
        get_logger("ui").warning("ui.warm_failed", error=f"{type(exc).__name__}: {exc}")
